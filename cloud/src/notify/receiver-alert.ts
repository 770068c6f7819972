/**
 * The alert `receiver.failing`: a marketplace's receiver that failed its last
 * RECEIVER_FAILING_ALERT_ATTEMPTS delivery attempts in a row (whichever notifications) gets a
 * critical alert at once, naming the marketplace and the receiver's last answer; its next
 * delivery resolves it. Alerts belong to a locker, so it is filed on the locker of the order
 * whose notification failed; one alert per marketplace (its dedup key names the marketplace
 * alone), repeats count on it and carry the latest error.
 */
import type { Logger } from 'pino';
import type { Tx } from '../db/transaction.js';
import { alertMessage } from '../locker-events/alerts.js';
import type { LiveMessage } from '../operator/live-feed.js';
import { raiseAlert, resolveAlertsByKey } from '../repositories/alerts.js';
import { lastAttemptsFailed } from '../repositories/notifications.js';
import { findOrderById } from '../repositories/orders.js';

export const RECEIVER_FAILING_KIND = 'receiver.failing';

const keyOf = (marketplaceId: string): string => `${RECEIVER_FAILING_KIND}:${marketplaceId}`;

export interface FailedAttempt {
  marketplaceId: string;
  orderId: string;
  status: number | null;
  error: string;
  at: number;
}

/** After a failed attempt is recorded (in its transaction): raises or repeats the alert when due. */
export async function alertIfReceiverFailing(db: Tx, log: Logger, attempts: number, f: FailedAttempt): Promise<LiveMessage[]> {
  if (!(await lastAttemptsFailed(db, f.marketplaceId, attempts))) return [];
  const order = await findOrderById(db, f.orderId);
  if (!order) return [];
  const alert = await raiseAlert(db, {
    lockerId: order.locker_id,
    dseq: null,
    kind: RECEIVER_FAILING_KIND,
    severity: 'critical',
    cellId: null,
    orderId: f.orderId,
    detail: { marketplaceId: f.marketplaceId, failedAttempts: attempts, lastStatus: f.status, lastError: f.error },
    dedupKey: keyOf(f.marketplaceId),
    occurredAt: f.at,
    receivedAt: f.at,
  });
  if (!alert) return [];
  if (alert.count === 1) log.error({ marketplaceId: f.marketplaceId, status: f.status ?? undefined, error: f.error }, 'receiver failing: alert raised');
  return [alertMessage(alert)];
}

/** After a delivery: the marketplace's active alert, if any, is resolved. */
export async function resolveReceiverFailing(db: Tx, marketplaceId: string, at: number): Promise<LiveMessage[]> {
  const resolved = await resolveAlertsByKey(db, [keyOf(marketplaceId)], at, 'cloud', 'delivered');
  return resolved.map(alertMessage);
}
