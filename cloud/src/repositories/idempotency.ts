/**
 * Idempotency-Keys (table idempotency_keys), one row per caller and key: claimed by a request
 * (token, lease), then holding that request's answer until it expires. Every write that finishes
 * or releases a claim names the claim's token, so a request that lost its key to a retry (its lease
 * ran out) changes nothing.
 */
import type { IdempotencyKeysTable } from '../db/schema.js';
import type { Tx } from '../db/transaction.js';

export interface KeyRef {
  caller: string;
  key: string;
}

export interface StoredKey {
  fingerprint: string;
  token: string;
  lockedUntil: number;
  /** Null while the owning request is in flight. */
  answer: { status: number; body: string } | null;
  expiresAt: number;
}

export interface NewClaim extends KeyRef {
  fingerprint: string;
  token: string;
  lockedUntil: number;
  createdAt: number;
  expiresAt: number;
}

/** The row a claim writes, new or taken over: no answer yet. */
function claimColumns(claim: NewClaim) {
  return {
    fingerprint: claim.fingerprint,
    token: claim.token,
    locked_until: claim.lockedUntil,
    status: null,
    response: null,
    created_at: claim.createdAt,
    expires_at: claim.expiresAt,
  };
}

/** Inserts the claim unless the key exists; true when inserted. */
export async function insertClaim(db: Tx, claim: NewClaim): Promise<boolean> {
  const r = await db
    .insertInto('idempotency_keys')
    .values({ caller: claim.caller, key: claim.key, ...claimColumns(claim) })
    .onConflict((oc) => oc.columns(['caller', 'key']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
}

function stored(row: Pick<IdempotencyKeysTable, 'fingerprint' | 'token' | 'locked_until' | 'status' | 'response' | 'expires_at'>): StoredKey {
  return {
    fingerprint: row.fingerprint,
    token: row.token,
    lockedUntil: Number(row.locked_until),
    answer: row.status === null || row.response === null ? null : { status: row.status, body: row.response },
    expiresAt: Number(row.expires_at),
  };
}

export async function findKey(db: Tx, ref: KeyRef): Promise<StoredKey | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'token', 'locked_until', 'status', 'response', 'expires_at'])
    .where('caller', '=', ref.caller)
    .where('key', '=', ref.key)
    .executeTakeFirst();
  return row && stored(row);
}

/** Replaces the claim whose token was `previousToken` (an abandoned or expired one); true when replaced. */
export async function takeOverClaim(db: Tx, claim: NewClaim, previousToken: string): Promise<boolean> {
  const r = await db
    .updateTable('idempotency_keys')
    .set(claimColumns(claim))
    .where('caller', '=', claim.caller)
    .where('key', '=', claim.key)
    .where('token', '=', previousToken)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Stores the answer of the claim `token` while it is still in flight; false when the claim is no longer the row's. */
export async function storeAnswer(db: Tx, ref: KeyRef, token: string, answer: { status: number; body: string }): Promise<boolean> {
  const r = await db
    .updateTable('idempotency_keys')
    .set({ status: answer.status, response: answer.body })
    .where('caller', '=', ref.caller)
    .where('key', '=', ref.key)
    .where('token', '=', token)
    .where('status', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Deletes the claim `token` while it is in flight (its request failed unexpectedly: a retry runs again). */
export async function releaseClaim(db: Tx, ref: KeyRef, token: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('caller', '=', ref.caller)
    .where('key', '=', ref.key)
    .where('token', '=', token)
    .where('status', 'is', null)
    .execute();
}

/** Deletes keys expired at `now`; returns how many. */
export async function deleteExpiredKeys(db: Tx, now: number): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
