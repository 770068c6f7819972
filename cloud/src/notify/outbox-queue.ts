/**
 * The notifications table as a delivery queue. Per order only the oldest undelivered row (its
 * head) may be attempted, so an order's notifications arrive in the order they happened and an
 * undelivered one holds back the later ones of its order only. Claiming a head moves its
 * next_attempt_at to a lease deadline in one short transaction (PostgreSQL: FOR UPDATE SKIP
 * LOCKED, so processes never wait for or take each other's rows; SQLite: one process, BEGIN
 * IMMEDIATE); the attempt itself runs outside any transaction. The lease value doubles as the
 * claim's token: an attempt records its outcome only while its lease is still the row's, and a
 * process killed mid-attempt leaves a row that becomes due again when the lease runs out.
 */
import type { ExpressionBuilder } from 'kysely';
import type { CloudDatabase } from '../db/database.js';
import type { Database, NotificationRow } from '../db/schema.js';
import { transaction } from '../db/transaction.js';

type N = ExpressionBuilder<Database & { n: Database['notifications'] }, 'n'>;

/** No older undelivered notification of the same order. */
function isHead(eb: N) {
  return eb.not(
    eb.exists(
      eb
        .selectFrom('notifications as e')
        .select('e.id')
        .whereRef('e.order_id', '=', 'n.order_id')
        .where('e.delivered_at', 'is', null)
        .whereRef('e.id', '<', 'n.id'),
    ),
  );
}

/** Claims up to `limit` due heads; the returned rows carry their lease in next_attempt_at. */
export async function claimDue(cdb: CloudDatabase, now: number, limit: number, leaseMs: number): Promise<NotificationRow[]> {
  return transaction(cdb, async (tx) => {
    let query = tx
      .selectFrom('notifications as n')
      .selectAll('n')
      .where('n.delivered_at', 'is', null)
      .where('n.next_attempt_at', '<=', now)
      .where(isHead)
      .orderBy('n.id')
      .limit(limit);
    if (cdb.engine === 'postgres') query = query.forUpdate().skipLocked();
    const rows = await query.execute();
    if (rows.length === 0) return [];
    const lease = now + leaseMs;
    await tx
      .updateTable('notifications')
      .set((eb) => ({ next_attempt_at: lease, last_attempt_at: now, attempts: eb('attempts', '+', 1) }))
      .where('id', 'in', rows.map((r) => r.id))
      .execute();
    return rows.map((r) => ({ ...r, next_attempt_at: lease, last_attempt_at: now, attempts: r.attempts + 1 }));
  });
}

/** When the next head becomes due (null: nothing undelivered). */
export async function nextDueAt(cdb: CloudDatabase): Promise<number | null> {
  const row = await cdb.db
    .selectFrom('notifications as n')
    .select((eb) => eb.fn.min('n.next_attempt_at').as('due'))
    .where('n.delivered_at', 'is', null)
    .where(isHead)
    .executeTakeFirst();
  return row?.due === null || row?.due === undefined ? null : Number(row.due);
}

export async function recordDelivered(cdb: CloudDatabase, claimed: NotificationRow, now: number): Promise<boolean> {
  const r = await cdb.db
    .updateTable('notifications')
    .set({ delivered_at: now, last_status: 200, last_error: null, failing_since: null })
    .where('id', '=', claimed.id)
    .where('delivered_at', 'is', null)
    .where('next_attempt_at', '=', claimed.next_attempt_at)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export interface FailurePolicy {
  retryMs: number;
  failingAfterMs: number;
  failingRetryMs: number;
}

/** Schedules the next attempt; returns whether the row became failing with this attempt. */
export async function recordFailed(
  cdb: CloudDatabase,
  claimed: NotificationRow,
  now: number,
  outcome: { status: number | null; error: string },
  policy: FailurePolicy,
): Promise<{ failingNow: boolean }> {
  const failingSince = claimed.failing_since ?? (now - claimed.created_at >= policy.failingAfterMs ? now : null);
  const next = now + (failingSince === null ? policy.retryMs : policy.failingRetryMs);
  const r = await cdb.db
    .updateTable('notifications')
    .set({ next_attempt_at: next, last_status: outcome.status, last_error: outcome.error.slice(0, 500), failing_since: failingSince })
    .where('id', '=', claimed.id)
    .where('delivered_at', 'is', null)
    .where('next_attempt_at', '=', claimed.next_attempt_at)
    .executeTakeFirst();
  return { failingNow: Number(r.numUpdatedRows) > 0 && claimed.failing_since === null && failingSince !== null };
}
