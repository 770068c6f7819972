/**
 * What a domain service knows of the API call it serves, when it serves one (`deps.request`):
 * the call's X-Request-Id, recorded with the notifications the call causes, and the hook through
 * which an Idempotency-Key stores the call's answer inside the operation's own transaction, so
 * that the effect and the answer replayed to retries commit together (http/idempotency.ts).
 * Background work (sweeps, the storage clock, locker events) has no request scope.
 */
import type { Tx } from './db/transaction.js';

export interface RequestScope {
  requestId: string;
  /** Called with the answer inside the transaction that makes the operation's effect. */
  answered?: (tx: Tx, answer: unknown) => Promise<void>;
  /**
   * The call's record on the order's timeline (http/order-api-calls.ts), written in the
   * transaction that created the order (`record`), and `recorded()` once that committed, so the
   * call is not recorded again after its answer.
   */
  call?: { record(tx: Tx, orderId: string): Promise<void>; recorded(): void };
}

/** Hands the answer to the request's Idempotency-Key, if it has one, in the caller's transaction. */
export async function recordAnswer<T>(scope: RequestScope | undefined, tx: Tx, answer: T): Promise<T> {
  if (scope?.answered) await scope.answered(tx, answer);
  return answer;
}
