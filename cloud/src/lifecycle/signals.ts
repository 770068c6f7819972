/**
 * After the transaction that applied lifecycle rows has committed: the sync publisher is woken for
 * every locker that got commands, the notification dispatcher when notifications were recorded,
 * and operators watching live see each order's new state.
 */
import type { OutboxSignals } from '../outbox/signals.js';
import type { Applied } from './apply.js';

export function signalApplied(signals: OutboxSignals, applied: readonly Applied[]): void {
  const lockers = applied.flatMap((a) => a.commandLockers);
  if (lockers.length > 0) signals.commandsRecorded(lockers);
  if (applied.some((a) => a.notifications.length > 0)) signals.notificationsRecorded();
  for (const a of applied) signals.live.publish({ type: 'order', orderId: a.order.id, lockerId: a.order.locker_id, state: a.order.state, rule: a.rule.id });
}
