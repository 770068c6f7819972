/**
 * The two moves of the storage clock (rows SE1, RC1 and RC2 of the lifecycle table), each order
 * in its own locker transaction and re-checked under the lock, so several cloud processes (or a
 * tick racing an extension or a pickup) never move an order twice:
 * - Courier loaded (3) whose holdUntil has passed -> Return initiated (6), code revoked at once;
 * - Return initiated (6) -> Awaiting return (7) once the locker applied the revocation, or after
 *   the confirmation timeout (at most 15 minutes), with order-status 7 per parcel in the locker.
 */
import type { Logger } from 'pino';
import { OrderState } from '../../../shared/src/enums.js';
import type { Clock } from '../clock.js';
import type { CloudDatabase } from '../db/database.js';
import { lockerTransaction } from '../db/transaction.js';
import type { OutboxSignals } from '../outbox/signals.js';
import { applyTransition, type Applied } from '../lifecycle/apply.js';
import { revocationCseq } from '../lifecycle/repository.js';
import { signalApplied } from '../lifecycle/signals.js';
import { downCursor } from '../repositories/locker-stream.js';
import { lockerById } from '../repositories/lockers.js';
import { findOrderById, loadParcels, ordersWithStorageEnded, returnsToComplete } from '../repositories/orders.js';

export interface ExpiryDeps {
  cdb: CloudDatabase;
  clock: Clock;
  signals: OutboxSignals;
  logger: Logger;
}

/** Orders handled per run; the next run takes the rest. */
const BATCH = 500;

/** 3 -> 6 for every order whose storage has ended; returns how many moved. */
export async function expireStorage(deps: ExpiryDeps): Promise<number> {
  const { cdb, clock } = deps;
  const now = clock.now();
  const due = await ordersWithStorageEnded(cdb.db, now, BATCH);
  const applied: Applied[] = [];
  for (const c of due) {
    const moved = await lockerTransaction(cdb, [c.lockerId], async (tx) => {
      const order = await findOrderById(tx, c.orderId);
      if (!order || order.state !== OrderState.CourierLoaded || order.hold_until === null || order.hold_until > now) return null;
      const parcels = await loadParcels(tx, order.id);
      const locker = await lockerById(tx, order.locker_id);
      return applyTransition(tx, undefined, { event: 'storage.expired', before: order, order, parcelsBefore: parcels, parcels, locker, at: now });
    });
    if (moved) {
      applied.push(moved);
      deps.logger.info({ orderId: c.orderId, lockerId: c.lockerId }, 'storage expired; return initiated');
    }
  }
  signalApplied(deps.signals, applied);
  return applied.length;
}

/**
 * The sandbox's "storage runs out now": 3 -> 6 for one order whatever its holdUntil, through the
 * same lifecycle row as the clock's (SE1). False when the order is not Courier loaded.
 */
export async function expireOrderNow(deps: ExpiryDeps, orderId: string, lockerId: number): Promise<boolean> {
  const now = deps.clock.now();
  const moved = await lockerTransaction(deps.cdb, [lockerId], async (tx) => {
    const order = await findOrderById(tx, orderId);
    if (!order || order.state !== OrderState.CourierLoaded) return null;
    const parcels = await loadParcels(tx, order.id);
    const locker = await lockerById(tx, order.locker_id);
    return applyTransition(tx, undefined, { event: 'storage.expired', before: order, order, parcelsBefore: parcels, parcels, locker, at: now });
  });
  if (moved) deps.logger.info({ orderId, lockerId }, 'storage expired by the sandbox; return initiated');
  signalApplied(deps.signals, moved ? [moved] : []);
  return moved !== null;
}

/** 6 -> 7 where confirmed or timed out (only `lockerId`'s orders when given); returns how many moved. */
export async function completeReturns(deps: ExpiryDeps, confirmMs: number, lockerId?: number): Promise<number> {
  const { cdb, clock } = deps;
  const now = clock.now();
  const candidates = await returnsToComplete(cdb.db, now - confirmMs, BATCH, lockerId);
  const applied: Applied[] = [];
  for (const c of candidates) {
    const moved = await lockerTransaction(cdb, [c.lockerId], async (tx) => {
      const order = await findOrderById(tx, c.orderId);
      if (!order || order.state !== OrderState.ReturnInitiated) return null;
      const cseq = await revocationCseq(tx, order);
      const locker = await lockerById(tx, order.locker_id);
      const cursor = await downCursor(tx, order.locker_id);
      const confirmed = cursor !== undefined && cursor.appliedCseq >= cseq;
      if (!confirmed && now < order.state_changed_at + confirmMs) return null;
      const parcels = await loadParcels(tx, order.id);
      const event = confirmed ? 'revocation.confirmed' : 'revocation.timedOut';
      return applyTransition(tx, undefined, { event, before: order, order, parcelsBefore: parcels, parcels, locker, at: now });
    });
    if (moved) {
      applied.push(moved);
      deps.logger.info({ orderId: c.orderId, lockerId: c.lockerId, reason: moved.rule.event === 'revocation.confirmed' ? 'confirmed' : 'timeout' }, 'awaiting return');
    }
  }
  signalApplied(deps.signals, applied);
  return applied.length;
}
