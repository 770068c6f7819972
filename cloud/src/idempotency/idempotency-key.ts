/**
 * Idempotency-Key (the IETF draft "The Idempotency-Key HTTP Header Field"): a caller's key for one
 * mutating request, so that a retry of it gets the first answer instead of a second effect.
 *
 * - The header is a Structured Field String (`"8e03978e-40d5"`); a bare value of printable ASCII
 *   without spaces, quotes or backslashes is accepted too (the same key as its quoted form). 1 to 255 characters once unquoted; anything else is code 3.
 * - A key belongs to its caller (marketplace or partner) and is fingerprinted with the operation
 *   and the canonical body (key order and whitespace do not matter).
 * - Same key, same fingerprint, answered: the first answer (status and body) is replayed.
 *   Same key, another fingerprint: 422 code 3 (the draft: the key is reused with another payload).
 *   Same key, its first request still in flight: 409 code 4 with Retry-After (the draft: conflict).
 * - The claim is a row inserted before the operation runs (one statement, so a concurrent retry in
 *   any cloud process sees it in flight); the answer is stored by the operation's own transaction
 *   (RequestScope.answered), so the effect and its stored answer commit together. A claim not
 *   answered within the lease (its process died) may be taken over by a retry; the operation of a
 *   request that lost its claim rolls back (its answered() finds another token).
 * - Keys expire after `idempotencyKeyHours`; a sweep deletes them.
 */
import { randomUUID } from 'node:crypto';
import { ResultCode } from '../../../shared/src/enums.js';
import type { Tx } from '../db/transaction.js';
import { DomainError, invalidRequest, type Bilingual } from '../errors.js';
import { findKey, insertClaim, type KeyRef, type NewClaim, storeAnswer, takeOverClaim } from '../repositories/idempotency.js';
import type { ServiceDeps } from '../services.js';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** The header's longest form: the key quoted with every character escaped. */
export const MAX_IDEMPOTENCY_HEADER_LENGTH = 2 * MAX_IDEMPOTENCY_KEY_LENGTH + 2;

/** Printable ASCII without spaces, quotes or backslashes (those belong to the quoted form). */
const BARE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/** The key of the header value (unquoted), or code 3. */
export function parseIdempotencyKey(header: string | string[]): string {
  if (typeof header !== 'string') throw invalidRequest({ ru: 'Idempotency-Key должен быть передан один раз', en: 'Idempotency-Key must be sent once' });
  // Bound the input before any pattern sees it (quotes and escapes at most double the key).
  if (header.length > MAX_IDEMPOTENCY_HEADER_LENGTH) throw invalidRequest({ ru: `Idempotency-Key длиннее ${MAX_IDEMPOTENCY_KEY_LENGTH} символов`, en: `Idempotency-Key longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` });
  const quoted = SF_STRING.exec(header);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : BARE.test(header) ? header : null;
  if (key === null) throw invalidRequest({ ru: 'Idempotency-Key должен быть строкой в кавычках или печатными символами ASCII без пробелов', en: 'Idempotency-Key must be a quoted string or printable ASCII without spaces' });
  if (key.length < 1 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw invalidRequest({ ru: `Idempotency-Key должен содержать от 1 до ${MAX_IDEMPOTENCY_KEY_LENGTH} символов`, en: `Idempotency-Key must have 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` });
  return key;
}

/** The request that holds a key: its answer is stored only under `token`. */
export interface KeyClaim extends KeyRef {
  token: string;
}

export type ClaimOutcome = { kind: 'claimed'; claim: KeyClaim } | { kind: 'replay'; status: number; body: string };

/** Seconds a caller is told to wait before retrying a key whose first request is in flight. */
const IN_FLIGHT_RETRY_SECONDS = 1;

/** How often a claim is tried again when the row changed under it (another request took or swept it). */
const CLAIM_ATTEMPTS = 5;

/** The messages of the two refusals (the OpenAPI document shows them as examples). */
export const KEY_REUSED_MESSAGE: Bilingual = { ru: 'Idempotency-Key уже использован для другого запроса', en: 'Idempotency-Key is already used for another request' };
export const KEY_IN_FLIGHT_MESSAGE: Bilingual = { ru: 'Запрос с этим Idempotency-Key ещё выполняется', en: 'A request with this Idempotency-Key is still being processed' };

function reusedWithOtherRequest(): DomainError {
  return invalidRequest(KEY_REUSED_MESSAGE, { status: 422 });
}

export function keyInFlight(): DomainError {
  return new DomainError(ResultCode.TooManyRequests, KEY_IN_FLIGHT_MESSAGE.ru, {
    localized: KEY_IN_FLIGHT_MESSAGE,
    status: 409,
    retryAfterSeconds: IN_FLIGHT_RETRY_SECONDS,
  });
}

/** Claims the key for this request, or says what the caller gets instead (replay; 422 or 409 thrown). */
export async function claimKey(deps: Pick<ServiceDeps, 'cdb' | 'clock' | 'config'>, ref: KeyRef, fingerprint: string): Promise<ClaimOutcome> {
  const { db } = deps.cdb;
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const now = deps.clock.now();
    const claim: NewClaim = {
      ...ref,
      fingerprint,
      token: randomUUID(),
      lockedUntil: now + deps.config.idempotencyLeaseSeconds * 1000,
      createdAt: now,
      expiresAt: now + deps.config.idempotencyKeyHours * 3600_000,
    };
    if (await insertClaim(db, claim)) return { kind: 'claimed', claim: { ...ref, token: claim.token } };
    const row = await findKey(db, ref);
    if (!row) continue; // swept meanwhile
    const expired = row.expiresAt <= now;
    if (!expired) {
      if (row.fingerprint !== fingerprint) throw reusedWithOtherRequest();
      if (row.answer) return { kind: 'replay', ...row.answer };
      if (row.lockedUntil > now) throw keyInFlight();
    }
    // Expired, or abandoned in flight: this request takes the key over.
    if (await takeOverClaim(db, claim, row.token)) return { kind: 'claimed', claim: { ...ref, token: claim.token } };
  }
  throw keyInFlight();
}

/** Stores the operation's answer in its transaction; a claim taken over meanwhile rolls the operation back (409). */
export async function answerInTransaction(tx: Tx, claim: KeyClaim, answer: unknown): Promise<void> {
  if (!(await storeAnswer(tx, claim, claim.token, { status: 200, body: JSON.stringify(answer) }))) throw keyInFlight();
}
