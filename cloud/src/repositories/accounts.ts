/**
 * Marketplaces, partners, their links to lockers and marketplaces, and the API keys (hashes only)
 * that name them. Every function takes the executor the caller holds (`cdb.db` or a `tx`).
 */
import type { Tx } from '../db/transaction.js';

export type KeyOwnerKind = 'marketplace' | 'partner' | 'operator';

export interface ApiKey {
  keyHash: string;
  ownerKind: KeyOwnerKind;
  ownerId: string;
}

/** An API key with the stored `rateLimits` (JSON text, parsed by the guard) of its owner. */
export interface KeyOwnerLimits {
  ownerKind: KeyOwnerKind;
  ownerId: string;
  /** The owner's `rateLimits` from the fleet file; null: the defaults. */
  rateLimits: string | null;
}

/** A marketplace as the services see it; where it receives notifications is `notificationReceiver`. */
export interface Marketplace {
  id: string;
  name: string;
  active: boolean;
  organizationActive: boolean;
  storagePeriodHours: number;
  /** Its `rateLimits` from the fleet file (JSON text, parsed by the guard); null: the defaults. */
  rateLimits: string | null;
  /** A sandbox marketplace: sees only sandbox lockers, may call the sandbox operations. */
  sandbox: boolean;
  updatedAt: number;
}

/** A courier partner as the services see it. */
export interface Partner {
  id: string;
  name: string;
  active: boolean;
  /** Its `rateLimits` from the fleet file (JSON text, parsed by the guard); null: the defaults. */
  rateLimits: string | null;
  updatedAt: number;
}

/** Where and how a marketplace receives its notifications. */
export interface NotificationReceiver {
  url: string | null;
  login: string | null;
  password: string | null;
  /** Path of a PEM file with extra CAs trusted for this receiver. */
  caFile: string | null;
  bodyForm: 'object' | 'array';
  hmacSecret: string | null;
}

/** The receiver and until when the sandbox holds it as if it were down (null: not held). */
export interface HeldReceiver extends NotificationReceiver {
  heldUntil: number | null;
}

/** What the fleet file sets on a marketplace. */
export interface MarketplaceFields {
  name: string;
  sandbox: boolean;
  active: boolean;
  organizationActive: boolean;
  receiver: NotificationReceiver;
  storagePeriodHours: number;
  /** Its `rateLimits`, stored as given; null: the defaults. */
  rateLimits: unknown;
}

/** What the fleet file sets on a partner. */
export interface PartnerFields {
  name: string;
  active: boolean;
  rateLimits: unknown;
  marketplaceIds: readonly string[];
  lockerIds: readonly number[];
}

export async function findApiKey(db: Tx, keyHash: string): Promise<ApiKey | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
  return row && { keyHash: row.key_hash, ownerKind: row.owner_kind as KeyOwnerKind, ownerId: row.owner_id };
}

/** The owner of a key and its rate limits, in one query. */
export async function keyOwnerLimits(db: Tx, keyHash: string): Promise<KeyOwnerLimits | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .leftJoin('marketplaces', (j) => j.onRef('marketplaces.id', '=', 'api_keys.owner_id').on('api_keys.owner_kind', '=', 'marketplace'))
    .leftJoin('partners', (j) => j.onRef('partners.id', '=', 'api_keys.owner_id').on('api_keys.owner_kind', '=', 'partner'))
    .select(['api_keys.owner_id', 'api_keys.owner_kind', 'marketplaces.rate_limits as marketplace_limits', 'partners.rate_limits as partner_limits'])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const ownerKind = row.owner_kind as KeyOwnerKind;
  const rateLimits = ownerKind === 'marketplace' ? row.marketplace_limits : ownerKind === 'partner' ? row.partner_limits : null;
  return { ownerKind, ownerId: row.owner_id, rateLimits: rateLimits ?? null };
}

export async function findMarketplace(db: Tx, marketplaceId: string): Promise<Marketplace | undefined> {
  const row = await db.selectFrom('marketplaces').selectAll().where('id', '=', marketplaceId).executeTakeFirst();
  return (
    row && {
      id: row.id,
      name: row.name,
      active: !!row.active,
      organizationActive: !!row.organization_active,
      storagePeriodHours: row.storage_period_hours,
      rateLimits: row.rate_limits,
      sandbox: !!row.sandbox,
      updatedAt: row.updated_at,
    }
  );
}

/** The marketplace's notification receiver and its sandbox hold; undefined: no such marketplace. */
export async function notificationReceiver(db: Tx, marketplaceId: string): Promise<HeldReceiver | undefined> {
  const row = await db
    .selectFrom('marketplaces')
    .select(['receiver_url', 'receiver_login', 'receiver_password', 'receiver_ca_file', 'body_form', 'hmac_secret', 'receiver_held_until'])
    .where('id', '=', marketplaceId)
    .executeTakeFirst();
  return (
    row && {
      url: row.receiver_url,
      login: row.receiver_login,
      password: row.receiver_password,
      caFile: row.receiver_ca_file,
      bodyForm: row.body_form === 'array' ? 'array' : 'object',
      hmacSecret: row.hmac_secret,
      heldUntil: row.receiver_held_until,
    }
  );
}

/** Holds a marketplace's receiver as if it were down until `until` (null: releases it). */
export async function holdReceiver(db: Tx, marketplaceId: string, until: number | null): Promise<void> {
  await db.updateTable('marketplaces').set({ receiver_held_until: until }).where('id', '=', marketplaceId).execute();
}

export async function findPartner(db: Tx, partnerId: string): Promise<Partner | undefined> {
  const row = await db.selectFrom('partners').selectAll().where('id', '=', partnerId).executeTakeFirst();
  return row && { id: row.id, name: row.name, active: !!row.active, rateLimits: row.rate_limits, updatedAt: row.updated_at };
}

/** Lockers the partner's couriers may serve. */
export async function partnerLockerIds(db: Tx, partnerId: string): Promise<number[]> {
  return (await db.selectFrom('partner_lockers').select('locker_id').where('partner_id', '=', partnerId).execute()).map((r) => r.locker_id);
}

/** Marketplaces the partner serves, by id. */
export async function partnerMarketplaceIds(db: Tx, partnerId: string): Promise<string[]> {
  return (await db.selectFrom('partner_marketplaces').select('marketplace_id').where('partner_id', '=', partnerId).orderBy('marketplace_id').execute()).map(
    (r) => r.marketplace_id,
  );
}

/** Marketplaces of each partner, by marketplace id. */
export async function marketplacesOfPartners(db: Tx, partnerIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(partnerIds.map((p) => [p, []]));
  if (partnerIds.length === 0) return out;
  const links = await db
    .selectFrom('partner_marketplaces')
    .select(['partner_id', 'marketplace_id'])
    .where('partner_id', 'in', [...partnerIds])
    .orderBy('marketplace_id')
    .execute();
  for (const l of links) out.get(l.partner_id)?.push(l.marketplace_id);
  return out;
}

/** Upserts the given marketplaces; every other active one is deactivated (never deleted). */
export async function saveMarketplaces(db: Tx, marketplaces: ReadonlyMap<string, MarketplaceFields>, at: number): Promise<void> {
  const existing = new Set((await db.selectFrom('marketplaces').select('id').execute()).map((m) => m.id));
  for (const [id, m] of marketplaces) {
    const values = {
      name: m.name,
      active: m.active ? 1 : 0,
      organization_active: m.organizationActive ? 1 : 0,
      receiver_url: m.receiver.url,
      receiver_login: m.receiver.login,
      receiver_password: m.receiver.password,
      receiver_ca_file: m.receiver.caFile,
      body_form: m.receiver.bodyForm,
      hmac_secret: m.receiver.hmacSecret,
      storage_period_hours: m.storagePeriodHours,
      rate_limits: m.rateLimits ? JSON.stringify(m.rateLimits) : null,
      sandbox: m.sandbox ? 1 : 0,
      updated_at: at,
    };
    if (existing.has(id)) await db.updateTable('marketplaces').set(values).where('id', '=', id).execute();
    else await db.insertInto('marketplaces').values({ id, ...values }).execute();
  }
  let gone = db.updateTable('marketplaces').set({ active: 0, updated_at: at }).where('active', '=', 1);
  if (marketplaces.size > 0) gone = gone.where('id', 'not in', [...marketplaces.keys()]);
  await gone.execute();
}

/** Upserts the given partners and replaces every partner's links; other active partners are deactivated. */
export async function savePartners(db: Tx, partners: ReadonlyMap<string, PartnerFields>, at: number): Promise<void> {
  const existing = new Set((await db.selectFrom('partners').select('id').execute()).map((p) => p.id));
  for (const [id, p] of partners) {
    const values = { name: p.name, active: p.active ? 1 : 0, rate_limits: p.rateLimits ? JSON.stringify(p.rateLimits) : null, updated_at: at };
    if (existing.has(id)) await db.updateTable('partners').set(values).where('id', '=', id).execute();
    else await db.insertInto('partners').values({ id, ...values }).execute();
  }
  let gone = db.updateTable('partners').set({ active: 0, updated_at: at }).where('active', '=', 1);
  if (partners.size > 0) gone = gone.where('id', 'not in', [...partners.keys()]);
  await gone.execute();
  await db.deleteFrom('partner_marketplaces').execute();
  await db.deleteFrom('partner_lockers').execute();
  const entries = [...partners];
  const links = entries.flatMap(([id, p]) => [...new Set(p.marketplaceIds)].map((m) => ({ partner_id: id, marketplace_id: m })));
  if (links.length > 0) await db.insertInto('partner_marketplaces').values(links).execute();
  const lockers = entries.flatMap(([id, p]) => [...new Set(p.lockerIds)].map((l) => ({ partner_id: id, locker_id: l })));
  if (lockers.length > 0) await db.insertInto('partner_lockers').values(lockers).execute();
}

/** Replaces every API key. */
export async function replaceApiKeys(db: Tx, keys: readonly ApiKey[]): Promise<void> {
  await db.deleteFrom('api_keys').execute();
  if (keys.length > 0) await db.insertInto('api_keys').values(keys.map((k) => ({ key_hash: k.keyHash, owner_kind: k.ownerKind, owner_id: k.ownerId }))).execute();
}
