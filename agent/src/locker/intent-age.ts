/**
 * Intent that has outlived itself. An `order.upsert` for a reserved order carries `loadableUntil`,
 * the instant the cloud releases the reservation; an upsert that queued past it (or a locker that
 * heard nothing since) must not let a courier load the order on that stale word: the cloud may
 * have given the cell to another order. The cloud's next upsert (the release, or a new
 * reservation) decides again. Judged on the locker's own clock.
 */
import type { StoredOrder } from '../store/index.js';

export function reservationLapsed(order: StoredOrder, now: number): boolean {
  const until = order.intent.loadableUntil;
  return until !== undefined && until !== null && now >= until;
}
