/**
 * courier-with-route: registers or updates the partner's courier (matched by externalId) and
 * creates a route sheet with one access code for every locker of the route.
 *
 * - 604: empty courier externalId. 500: the partner has no permission profile, or the route names
 *   a locker outside it. 602: another courier of the same partner already uses the e-mail or the
 *   phone (also enforced by unique indexes, so concurrent requests agree).
 * - The code is random (6-8 digits, COURIER_CODE_LENGTH), unique among the active courier codes of
 *   every locker on the route, and valid until the end of the route date in each locker's time zone.
 * - Each locker gets a `courier.grant` with the code's hash, the validity, the partner's
 *   marketplaces and an opaque courier reference (no personal data).
 * - Several route sheets per courier and date may exist; each has its own code.
 * - No city registry is consulted: `mosRegistryStatus` is 0 with a text saying so.
 */
import { CodeKind, ResultCode } from '../../../shared/src/enums.js';
import { codeHash } from '../../../shared/src/codes.js';
import type { CourierWithRouteAnswer, CourierWithRouteRequest } from '../contract/couriers.js';
import { isUniqueViolation } from '../db/errors.js';
import type { LockerRow, PartnerRow } from '../db/schema.js';
import { lockerTransaction, type Tx } from '../db/transaction.js';
import { DomainError, invalidRequest } from '../errors.js';
import { endOfLocalDay } from '../lockers/locker-time.js';
import { recordChange } from '../outbox/record-change.js';
import type { ServiceDeps } from '../services.js';

export const MOS_REGISTRY_NOT_CHECKED = { mosRegistryStatus: 0, mosRegistryDescr: 'Not checked: no city registry is connected' } as const;
const MAX_CODE_ATTEMPTS = 50;

function noPermission(): DomainError {
  return new DomainError(ResultCode.PermissionProfileNotSet, 'Postamat permission profile not set for logist');
}

export async function courierWithRoute(deps: ServiceDeps, partner: PartnerRow, req: CourierWithRouteRequest): Promise<CourierWithRouteAnswer> {
  const { db } = deps.cdb;
  const externalId = req.courier.externalId;
  if (externalId === '') throw new DomainError(ResultCode.CourierExtIdEmpty, 'Courier ext-id id empty');

  const lockerIds = [...new Set(req.route.postamatIds)].sort((a, b) => a - b);
  const permitted = new Set(
    (await db.selectFrom('partner_lockers').select('locker_id').where('partner_id', '=', partner.id).execute()).map((r) => r.locker_id),
  );
  if (permitted.size === 0 || lockerIds.some((id) => !permitted.has(id))) throw noPermission();
  const lockers = await db.selectFrom('lockers').selectAll().where('id', 'in', lockerIds).execute();
  if (lockers.length !== lockerIds.length) throw noPermission();

  const now = deps.clock.now();
  const validUntil = new Map(lockers.map((l) => [l.id, endOfLocalDay(req.route.date, l.timezone)]));
  if ([...validUntil.values()].some((t) => t < now)) throw invalidRequest(`route.date ${req.route.date} has already ended`);
  const marketplaceIds = (
    await db.selectFrom('partner_marketplaces').select('marketplace_id').where('partner_id', '=', partner.id).orderBy('marketplace_id').execute()
  ).map((r) => r.marketplace_id);

  const attempt = () => createRouteSheet(deps, partner, req, lockers, validUntil, marketplaceIds, now);
  let code: string;
  try {
    code = await attempt();
  } catch (err) {
    // A concurrent request registered the same e-mail or phone: the retry reports it as 602.
    if (!isUniqueViolation(err)) throw err;
    code = await attempt();
  }
  deps.signals.commandsRecorded(lockerIds);
  return { ...MOS_REGISTRY_NOT_CHECKED, postamatAccessCode: code };
}

async function createRouteSheet(
  deps: ServiceDeps,
  partner: PartnerRow,
  req: CourierWithRouteRequest,
  lockers: readonly LockerRow[],
  validUntil: ReadonlyMap<number, number>,
  marketplaceIds: string[],
  now: number,
): Promise<string> {
  const email = req.courier.email.toLowerCase();
  const { phone } = req.courier;
  return lockerTransaction(
    deps.cdb,
    lockers.map((l) => l.id),
    async (tx) => {
      const other = await tx
        .selectFrom('couriers')
        .select(['external_id', 'email'])
        .where('partner_id', '=', partner.id)
        .where('external_id', '!=', req.courier.externalId)
        .where((eb) => eb.or([eb('email', '=', email), eb('phone', '=', phone)]))
        .executeTakeFirst();
      if (other) {
        throw new DomainError(ResultCode.CourierAlreadyExists, `Courier already exists for the logist: ${other.email}, externalId ${other.external_id}`);
      }
      const courierId = await upsertCourier(tx, deps, partner.id, req, email, now);
      const routeSheetId = deps.random.uuid();
      await tx
        .insertInto('route_sheets')
        .values({
          id: routeSheetId,
          courier_id: courierId,
          partner_id: partner.id,
          route_date: req.route.date,
          car_number: req.route.carNumber,
          external_id: req.route.externalId,
          created_at: now,
        })
        .execute();
      const code = await uniqueCourierCode(tx, deps, lockers, now);
      const rows = lockers.map((l) => ({
        route_sheet_id: routeSheetId,
        locker_id: l.id,
        code_hash: codeHash(CodeKind.Courier, String(l.id), code),
        valid_until: validUntil.get(l.id)!,
      }));
      await tx.insertInto('route_sheet_lockers').values(rows).execute();
      await recordChange(tx, {
        at: now,
        commands: rows.map((r) => ({
          lockerId: r.locker_id,
          body: {
            type: 'courier.grant' as const,
            grant: { grantId: `${routeSheetId}:${r.locker_id}`, codeHash: r.code_hash, validUntil: r.valid_until, marketplaceIds, courierRef: courierId },
          },
        })),
      });
      return code;
    },
  );
}

async function upsertCourier(tx: Tx, deps: ServiceDeps, partnerId: string, req: CourierWithRouteRequest, email: string, now: number): Promise<string> {
  const values = { email, phone: req.courier.phone, inn: req.courier.inn ?? null, updated_at: now };
  const existing = await tx
    .selectFrom('couriers')
    .select('id')
    .where('partner_id', '=', partnerId)
    .where('external_id', '=', req.courier.externalId)
    .executeTakeFirst();
  if (existing) {
    await tx.updateTable('couriers').set(values).where('id', '=', existing.id).execute();
    return existing.id;
  }
  const id = deps.random.uuid();
  await tx.insertInto('couriers').values({ id, partner_id: partnerId, external_id: req.courier.externalId, created_at: now, ...values }).execute();
  return id;
}

/** A code that no active route sheet of any locker on the route uses already. */
async function uniqueCourierCode(tx: Tx, deps: ServiceDeps, lockers: readonly LockerRow[], now: number): Promise<string> {
  for (let i = 0; i < MAX_CODE_ATTEMPTS; i++) {
    const code = deps.random.digits(deps.config.courierCodeLength);
    let clash = false;
    for (const l of lockers) {
      const used = await tx
        .selectFrom('route_sheet_lockers')
        .select('route_sheet_id')
        .where('locker_id', '=', l.id)
        .where('code_hash', '=', codeHash(CodeKind.Courier, String(l.id), code))
        .where('valid_until', '>=', now)
        .executeTakeFirst();
      if (used) {
        clash = true;
        break;
      }
    }
    if (!clash) return code;
  }
  throw new Error(`no free courier code for lockers ${lockers.map((l) => l.id).join(', ')} after ${MAX_CODE_ATTEMPTS} attempts`);
}
