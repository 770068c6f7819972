/**
 * What operators see of the notifications outbox and how they redeliver. Listings never show a
 * customer's pick-up code (masked in `user-access-code` bodies). Redelivery makes every
 * undelivered notification of the chosen notifications' orders due now and clears their failing
 * mark; the per-order order is kept. An attempt that fails again marks it failing again at once
 * (the limit counts from the notification's creation).
 */
import type { Kysely } from 'kysely';
import type { CloudDatabase } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { transaction } from '../db/transaction.js';

export const NOTIFICATION_STATUSES = ['failing', 'pending', 'delivered'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

export interface NotificationQuery {
  status: NotificationStatus;
  marketplaceId?: string | undefined;
  /** The order's externalId (with marketplaceId) or platform id. */
  orderExternalId?: string | undefined;
  /** Only rows with a smaller id (paging backwards). */
  beforeId?: number | undefined;
  limit: number;
}

export interface NotificationView {
  id: number;
  uid: string;
  marketplaceId: string;
  orderId: string;
  externalId: string | null;
  kind: string;
  body: unknown;
  createdAt: number;
  attempts: number;
  nextAttemptAt: number;
  lastAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  failingSince: number | null;
  deliveredAt: number | null;
}

export const MASKED_CODE = '******';

function masked(kind: string, body: string): unknown {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  return kind === 'user-access-code' && 'access_code' in parsed ? { ...parsed, access_code: MASKED_CODE } : parsed;
}

/** Newest first. */
export async function listNotifications(db: Kysely<Database>, q: NotificationQuery): Promise<NotificationView[]> {
  let query = db
    .selectFrom('notifications as n')
    .leftJoin('orders as o', 'o.id', 'n.order_id')
    .selectAll('n')
    .select('o.external_id')
    .orderBy('n.id', 'desc')
    .limit(q.limit);
  if (q.status === 'failing') query = query.where('n.delivered_at', 'is', null).where('n.failing_since', 'is not', null);
  if (q.status === 'pending') query = query.where('n.delivered_at', 'is', null);
  if (q.status === 'delivered') query = query.where('n.delivered_at', 'is not', null);
  if (q.marketplaceId !== undefined) query = query.where('n.marketplace_id', '=', q.marketplaceId);
  if (q.orderExternalId !== undefined) {
    const ext = q.orderExternalId;
    query = query.where((eb) => eb.or([eb('o.external_id', '=', ext), eb('n.order_id', '=', ext)]));
  }
  if (q.beforeId !== undefined) query = query.where('n.id', '<', q.beforeId);
  const rows = await query.execute();
  return rows.map((r) => ({
    id: r.id,
    uid: r.uid,
    marketplaceId: r.marketplace_id,
    orderId: r.order_id,
    externalId: r.external_id,
    kind: r.kind,
    body: masked(r.kind, r.body),
    createdAt: r.created_at,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastAttemptAt: r.last_attempt_at,
    lastStatus: r.last_status,
    lastError: r.last_error,
    failingSince: r.failing_since,
    deliveredAt: r.delivered_at,
  }));
}

export type RedeliverTarget = { ids: readonly number[] } | { failing: true; marketplaceId?: string | undefined };

export interface RedeliverResult {
  /** Orders whose undelivered notifications are due now. */
  orders: number;
  /** Notifications made due now. */
  notifications: number;
}

export async function redeliver(cdb: CloudDatabase, now: number, target: RedeliverTarget): Promise<RedeliverResult> {
  return transaction(cdb, async (tx) => {
    let chosen = tx.selectFrom('notifications').select('order_id').distinct().where('delivered_at', 'is', null);
    if ('ids' in target) {
      if (target.ids.length === 0) return { orders: 0, notifications: 0 };
      chosen = chosen.where('id', 'in', [...target.ids]);
    } else {
      chosen = chosen.where('failing_since', 'is not', null);
      if (target.marketplaceId !== undefined) chosen = chosen.where('marketplace_id', '=', target.marketplaceId);
    }
    const orders = (await chosen.execute()).map((r) => r.order_id);
    if (orders.length === 0) return { orders: 0, notifications: 0 };
    const r = await tx
      .updateTable('notifications')
      .set({ next_attempt_at: now, failing_since: null })
      .where('order_id', 'in', orders)
      .where('delivered_at', 'is', null)
      .executeTakeFirst();
    return { orders: orders.length, notifications: Number(r.numUpdatedRows) };
  });
}
