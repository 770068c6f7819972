/**
 * What the locker keeps and for how long (docs/operations.md "Retention"). Intent rows (orders,
 * grants) leave when the cloud removes them or they expire, journal rows when their operation
 * resolves; what else grows with traffic is swept here: events the cloud acknowledged (kept some
 * days for diagnosis and for a cloud restored from a backup to ask again), the keypad's daily
 * alarm marks, service codes a day past their end, and the free pages the deletes leave.
 */
import type { LockerStore } from './index.js';
import { releaseFreePages } from './database.js';

const DAY_MS = 86_400_000;

export interface StoreRetention {
  /** Acknowledged events older than this are deleted, days. */
  ackedEventDays: number;
  /** Rows one sweep deletes at most (a sweep is one short transaction per table). */
  batchSize: number;
}

export interface SweepResult {
  events: number;
  alarmDays: number;
}

export function sweepStore(store: LockerStore, retention: StoreRetention, now: number): SweepResult {
  const events = store.tx(() => store.outbox.pruneAcked(now - retention.ackedEventDays * DAY_MS, retention.batchSize));
  const alarmDays = store.tx(() => store.keypad.pruneAlarms(new Date(now - 31 * DAY_MS).toISOString().slice(0, 10)));
  const serviceCodes = store.tx(() => store.serviceCodes.prune(now - DAY_MS));
  if (events + alarmDays + serviceCodes > 0) releaseFreePages(store.db);
  return { events, alarmDays };
}
