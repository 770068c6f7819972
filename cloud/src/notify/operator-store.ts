/**
 * What operators see of the notifications outbox and how they redeliver. Listings never show a
 * customer's pick-up code (masked in `user-access-code` bodies). Redelivery makes every
 * undelivered notification of the chosen notifications' orders due now and clears their failing
 * mark; the per-order order is kept. An attempt that fails again marks it failing again at once
 * (the limit counts from the notification's creation).
 */
import type { CloudDatabase } from '../db/database.js';
import { transaction, type Tx } from '../db/transaction.js';
import { type Actor, audit, targets } from '../operator/audit.js';
import { listNotifications as storedNotifications, makeOrdersDueIn, receiverRows, type RedeliverTarget, type StoredNotification } from '../repositories/notifications.js';

export type { RedeliverTarget } from '../repositories/notifications.js';

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

/** A notification as listed: the body with any pick-up code masked. */
export type NotificationView = StoredNotification;

export const MASKED_CODE = '******';

function masked(kind: string, body: unknown): unknown {
  const parsed = body as Record<string, unknown>;
  return kind === 'user-access-code' && 'access_code' in parsed ? { ...parsed, access_code: MASKED_CODE } : parsed;
}

/** Newest first. */
export async function listNotifications(db: Tx, q: NotificationQuery): Promise<NotificationView[]> {
  const rows = await storedNotifications(db, {
    delivered: q.status === 'delivered',
    failing: q.status === 'failing' ? true : undefined,
    marketplaceId: q.marketplaceId,
    orderRef: q.orderExternalId,
    beforeId: q.beforeId,
    limit: q.limit,
  });
  return rows.map((n) => ({ ...n, body: masked(n.kind, n.body) }));
}

export interface RedeliverResult {
  /** Orders whose undelivered notifications are due now. */
  orders: number;
  /** Notifications made due now. */
  notifications: number;
}

/** Redelivers; with an operator, the redelivery is audited in its transaction. */
export function redeliver(cdb: CloudDatabase, now: number, target: RedeliverTarget, actor?: Actor): Promise<RedeliverResult> {
  return transaction(cdb, async (tx) => {
    const { orders, notifications, orderIds } = await makeOrdersDueIn(tx, now, target);
    if (actor && notifications > 0) await audit(tx, actor, now, 'notifications.redeliver', targets.notifications, { target, orderIds: orderIds.slice(0, 100), notifications }, { orderId: orderIds.length === 1 ? orderIds[0] : null });
    return { orders, notifications };
  });
}

/** A receiver is failing from its first failed attempt on, until an attempt delivers: no waiting for the failing limit. */
export type ReceiverState = 'ok' | 'failing' | 'idle';

const stateOf = (lastDelivered: boolean | null): ReceiverState => (lastDelivered === null ? 'idle' : lastDelivered ? 'ok' : 'failing');

/** Each marketplace's receiver: its backlog, its latest attempt and what that says of it now. */
export async function receivers(db: Tx) {
  return (await receiverRows(db)).map((r) => ({
    ...r,
    state: stateOf(r.lastDelivered),
  }));
}
