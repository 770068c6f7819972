/**
 * Couriers of the partners, their route sheets, and the access grants a route sheet gives on each
 * locker of its route (code hashes only). Every function takes the executor the caller holds.
 */
import type { Tx } from '../db/transaction.js';

export interface CourierContact {
  externalId: string;
  email: string;
  phone: string;
  inn: string | null;
}

export interface RouteSheet {
  id: string;
  courierId: string;
  partnerId: string;
  /** YYYY-MM-DD */
  routeDate: string;
  carNumber: string;
  /** The marketplace's own reference of the route. */
  externalId: string | null;
  createdAt: number;
}

/** A route sheet's access on one locker. */
export interface RouteGrant {
  routeSheetId: string;
  lockerId: number;
  /** codeHash('courier', lockerId, code) */
  codeHash: string;
  /** End of the route date in the locker's time zone. */
  validUntil: number;
}

/** A grant still valid, with the route sheet's partner and courier. */
export interface ActiveGrant extends RouteGrant {
  partnerId: string;
  courierId: string;
}

/** Another courier of the partner (not `externalId`) with the same e-mail or phone. */
export async function courierWithSameContact(
  db: Tx,
  partnerId: string,
  contact: Pick<CourierContact, 'externalId' | 'email' | 'phone'>,
): Promise<{ externalId: string; fields: ('email' | 'phone')[] } | undefined> {
  const row = await db
    .selectFrom('couriers')
    .select(['external_id', 'email', 'phone'])
    .where('partner_id', '=', partnerId)
    .where('external_id', '!=', contact.externalId)
    .where((eb) => eb.or([eb('email', '=', contact.email), eb('phone', '=', contact.phone)]))
    .executeTakeFirst();
  if (!row) return undefined;
  const fields = [...(row.email === contact.email ? (['email'] as const) : []), ...(row.phone === contact.phone ? (['phone'] as const) : [])];
  return { externalId: row.external_id, fields };
}

/** Updates the partner's courier with this externalId, or adds one with `newId`; returns its id. */
export async function saveCourier(db: Tx, partnerId: string, contact: CourierContact, newId: () => string, at: number): Promise<string> {
  const values = { email: contact.email, phone: contact.phone, inn: contact.inn, updated_at: at };
  const existing = await db
    .selectFrom('couriers')
    .select('id')
    .where('partner_id', '=', partnerId)
    .where('external_id', '=', contact.externalId)
    .executeTakeFirst();
  if (existing) {
    await db.updateTable('couriers').set(values).where('id', '=', existing.id).execute();
    return existing.id;
  }
  const id = newId();
  await db.insertInto('couriers').values({ id, partner_id: partnerId, external_id: contact.externalId, created_at: at, ...values }).execute();
  return id;
}

export async function insertRouteSheet(db: Tx, sheet: RouteSheet): Promise<void> {
  await db
    .insertInto('route_sheets')
    .values({
      id: sheet.id,
      courier_id: sheet.courierId,
      partner_id: sheet.partnerId,
      route_date: sheet.routeDate,
      car_number: sheet.carNumber,
      external_id: sheet.externalId,
      created_at: sheet.createdAt,
    })
    .execute();
}

export async function insertRouteGrants(db: Tx, grants: readonly RouteGrant[]): Promise<void> {
  if (grants.length === 0) return;
  await db
    .insertInto('route_sheet_lockers')
    .values(grants.map((g) => ({ route_sheet_id: g.routeSheetId, locker_id: g.lockerId, code_hash: g.codeHash, valid_until: g.validUntil })))
    .execute();
}

/** Whether a grant of the locker with this code hash is valid at `at` or later. */
export async function codeHashInUse(db: Tx, lockerId: number, codeHash: string, at: number): Promise<boolean> {
  const row = await db
    .selectFrom('route_sheet_lockers')
    .select('route_sheet_id')
    .where('locker_id', '=', lockerId)
    .where('code_hash', '=', codeHash)
    .where('valid_until', '>=', at)
    .executeTakeFirst();
  return row !== undefined;
}

/** The locker's grants valid after `now`, by route sheet id. */
export async function activeGrants(db: Tx, lockerId: number, now: number): Promise<ActiveGrant[]> {
  const rows = await db
    .selectFrom('route_sheet_lockers as rsl')
    .innerJoin('route_sheets as rs', 'rs.id', 'rsl.route_sheet_id')
    .select(['rsl.route_sheet_id', 'rsl.code_hash', 'rsl.valid_until', 'rs.partner_id', 'rs.courier_id'])
    .where('rsl.locker_id', '=', lockerId)
    .where('rsl.valid_until', '>', now)
    .orderBy('rsl.route_sheet_id')
    .execute();
  return rows.map((r) => ({
    routeSheetId: r.route_sheet_id,
    lockerId,
    codeHash: r.code_hash,
    validUntil: r.valid_until,
    partnerId: r.partner_id,
    courierId: r.courier_id,
  }));
}

/** The courier with this external id among the couriers of the partners delivering for the marketplace. */
export async function courierOfMarketplace(db: Tx, marketplaceId: string, externalId: string): Promise<string | undefined> {
  const partners = db.selectFrom('partner_marketplaces').select('partner_id').where('marketplace_id', '=', marketplaceId);
  const row = await db.selectFrom('couriers').select('id').where('external_id', '=', externalId).where('partner_id', 'in', partners).executeTakeFirst();
  return row?.id;
}

/** Which route sheets `routeToLocker` looks for: of a partner delivering for the marketplace, valid at `at`. */
export interface RouteQuery {
  marketplaceId: string;
  lockerId: number;
  at: number;
  /** Only this courier's route sheets. */
  courierId?: string | undefined;
  /** Only route sheets granting the locker with this code hash. */
  codeHash?: string | undefined;
}

/** Whether such a route sheet includes the locker. */
export async function routeToLocker(db: Tx, q: RouteQuery): Promise<boolean> {
  const partners = db.selectFrom('partner_marketplaces').select('partner_id').where('marketplace_id', '=', q.marketplaceId);
  let routes = db
    .selectFrom('route_sheet_lockers')
    .innerJoin('route_sheets', 'route_sheets.id', 'route_sheet_lockers.route_sheet_id')
    .select('route_sheets.id')
    .where('route_sheet_lockers.locker_id', '=', q.lockerId)
    .where('route_sheet_lockers.valid_until', '>=', q.at)
    .where('route_sheets.partner_id', 'in', partners);
  if (q.courierId !== undefined) routes = routes.where('route_sheets.courier_id', '=', q.courierId);
  if (q.codeHash !== undefined) routes = routes.where('route_sheet_lockers.code_hash', '=', q.codeHash);
  return (await routes.executeTakeFirst()) !== undefined;
}
