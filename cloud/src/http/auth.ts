/**
 * API keys. Only SHA-256 hashes are stored (table api_keys). A request's key is hashed and looked
 * up by its hash; the found hash is compared again in constant time. Looking up by hash leaks
 * nothing useful through timing: an attacker controls the key, not its hash.
 *
 * The owner comes from the key alone: a marketplace key yields the marketplace that scopes every
 * order query, a partner key the partner, an operator key the operator.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ResultCode } from '../../../shared/src/enums.js';
import type { CloudDatabase } from '../db/database.js';
import { DomainError, codeError } from '../errors.js';
import { findPartner, type KeyOwnerKind, type Marketplace, type Partner } from '../repositories/accounts.js';
import { knownAccountsOf } from '../repositories/known-accounts.js';

export type { KeyOwnerKind } from '../repositories/accounts.js';

export const API_KEY_HEADERS = {
  marketplace: 'x-service-api-key',
  partner: 'partner-api-key',
  operator: 'x-operator-api-key',
} as const satisfies Record<KeyOwnerKind, string>;

/**
 * The last few keys hashed: a request's key is hashed for its request limit and again for its
 * authentication. Holds no more keys than the requests in flight carry anyway.
 */
const recentHashes = new Map<string, string>();
const RECENT_HASHES = 16;

export function hashApiKey(key: string): string {
  let hash = recentHashes.get(key);
  if (hash === undefined) {
    hash = createHash('sha256').update(key, 'utf8').digest('hex');
    if (recentHashes.size >= RECENT_HASHES) recentHashes.delete(recentHashes.keys().next().value!);
    recentHashes.set(key, hash);
  }
  return hash;
}

/** The headers as the documents spell them. */
const HEADER_NAMES = { marketplace: 'X-Service-Api-Key', partner: 'Partner-Api-Key', operator: 'X-Operator-Api-Key' } as const satisfies Record<KeyOwnerKind, string>;

/**
 * 401 (code 1) saying what to fix: no key in the operation's header, or a key there that is not
 * accepted. "Not accepted" covers unknown, revoked, inactive and another kind's keys alike, so
 * the answer never tells whether a key exists for someone else.
 */
export function unauthorized(kind: KeyOwnerKind, reason: 'missing' | 'unknown'): DomainError {
  const h = HEADER_NAMES[kind];
  return codeError(
    ResultCode.AuthorizationError,
    reason === 'missing' ? { ru: `нет ключа в заголовке ${h}`, en: `no key in the ${h} header` } : { ru: `ключ в заголовке ${h} не принят`, en: `the key in the ${h} header is not accepted` },
  );
}

/** 401 (code 1): the operation's header is absent but another API key header was sent (named, never checked). */
export function keyInWrongHeader(kind: KeyOwnerKind, sent: KeyOwnerKind): DomainError {
  const h = HEADER_NAMES[kind];
  const w = HEADER_NAMES[sent];
  return codeError(ResultCode.AuthorizationError, {
    ru: `ключ передан в заголовке ${w}, а эта операция принимает ${h}`,
    en: `the key was sent in the ${w} header; this operation takes ${h}`,
  });
}

/** The other key header a request carries instead of the one of `kind`, if any. */
export function otherKeyHeader(kind: KeyOwnerKind, headers: Readonly<Record<string, string | string[] | undefined>>): KeyOwnerKind | undefined {
  return (Object.keys(API_KEY_HEADERS) as KeyOwnerKind[]).find((k) => k !== kind && headers[API_KEY_HEADERS[k]] !== undefined);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v && v.length > 0 && v.length <= 512 ? v : undefined;
}

async function ownerOf(cdb: CloudDatabase, kind: KeyOwnerKind, header: string | string[] | undefined): Promise<string> {
  const key = headerValue(header);
  if (!key) throw unauthorized(kind, 'missing');
  const hash = hashApiKey(key);
  const row = await knownAccountsOf(cdb).apiKey(hash);
  if (!row || !timingSafeEqual(Buffer.from(row.keyHash, 'hex'), Buffer.from(hash, 'hex')) || row.ownerKind !== kind) {
    throw unauthorized(kind, 'unknown');
  }
  return row.ownerId;
}

/** The calling marketplace; 401 with 1 (unknown key), 10 (inactive) or 11 (organization inactive). */
export async function authenticateMarketplace(cdb: CloudDatabase, header: string | string[] | undefined): Promise<Marketplace> {
  const id = await ownerOf(cdb, 'marketplace', header);
  const marketplace = await knownAccountsOf(cdb).marketplace(id);
  if (!marketplace) throw unauthorized('marketplace', 'unknown');
  if (!marketplace.active) throw codeError(ResultCode.MarketplaceNotActive);
  if (!marketplace.organizationActive) throw new DomainError(ResultCode.OrganizationNotActive, 'Marketplace organization not active');
  return marketplace;
}

/** The calling partner; an inactive partner is refused like an unknown key (401, code 1). */
export async function authenticatePartner(cdb: CloudDatabase, header: string | string[] | undefined): Promise<Partner> {
  const id = await ownerOf(cdb, 'partner', header);
  const partner = await findPartner(cdb.db, id);
  if (!partner || !partner.active) throw unauthorized('partner', 'unknown');
  return partner;
}

export async function authenticateOperator(cdb: CloudDatabase, header: string | string[] | undefined): Promise<string> {
  return ownerOf(cdb, 'operator', header);
}
