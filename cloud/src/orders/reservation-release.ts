/**
 * Reservations not loaded by the end of their dateDelivery (locker time) plus a grace are
 * released: the pending parcels lose their cells, the order stays New and a later load takes any
 * fitting free cell (docs/decisions.md, "Reservations not loaded in time"). `ReservationSweeper` runs the release periodically.
 */
import { OrderState, ParcelState } from '../../../shared/src/enums.js';
import { lockerTransaction } from '../db/transaction.js';
import { addDays } from '../lockers/locker-time.js';
import { applyTransition } from '../lifecycle/apply.js';
import { parcelStep } from '../lifecycle/decide.js';
import { stepParcel } from '../lifecycle/parcel-step.js';
import { signalApplied } from '../lifecycle/signals.js';
import { ScheduledPart } from '../scheduled-part.js';
import type { Scheduler } from '../scheduler.js';
import type { ServiceDeps } from '../services.js';
import { reservationExpiry } from './intent.js';
import { lifecycleDeps } from './lifecycle-deps.js';
import { lockerById } from '../repositories/lockers.js';
import { findOrderById, loadParcels, ordersHoldingReservations } from '../repositories/orders.js';

export { reservationExpiry } from './intent.js';

/** Releases every expired reservation; returns the ids of the orders it released. */
export async function releaseExpiredReservations(deps: ServiceDeps): Promise<string[]> {
  const { cdb, clock, config } = deps;
  const now = clock.now();
  // No time zone is more than a day ahead of UTC: later dates cannot have expired yet.
  const latest = addDays(new Date(now).toISOString().slice(0, 10), 1);
  const candidates = await ordersHoldingReservations(cdb.db, latest);
  const released: string[] = [];
  for (const c of candidates) {
    if (now < reservationExpiry(c.dateDelivery, c.timezone, config.reservationGraceMinutes)) continue;
    const done = await lockerTransaction(cdb, [c.lockerId], async (tx) => {
      const order = await findOrderById(tx, c.orderId);
      // Re-checked under the lock: the order may have been loaded, moved or postponed meanwhile.
      if (!order || order.state !== OrderState.New || order.locker_id !== c.lockerId) return false;
      if (now < reservationExpiry(order.date_delivery, c.timezone, config.reservationGraceMinutes)) return false;
      const parcels = await loadParcels(tx, order.id);
      const held = parcels.filter((p) => p.state === ParcelState.Pending && p.cell_id !== null);
      if (held.length === 0) return false;
      const locker = await lockerById(tx, order.locker_id);
      const step = parcelStep('reservation.release', ParcelState.Pending);
      return applyTransition(tx, lifecycleDeps(deps), {
        event: 'reservation.release',
        before: order,
        order,
        parcelsBefore: parcels,
        parcels: parcels.map((p) => (p.state === ParcelState.Pending ? stepParcel(p, step, now) : p)),
        locker,
        at: now,
        reservation: { timezone: c.timezone, graceMinutes: config.reservationGraceMinutes },
      });
    });
    if (done) {
      released.push(c.orderId);
      signalApplied(deps.signals, [done]);
    }
  }
  return released;
}

/** Runs the release every `reservationSweepSeconds` as a scheduler job; one run at a time. */
export class ReservationSweeper extends ScheduledPart<void> {
  constructor(
    private readonly deps: ServiceDeps,
    scheduler: Scheduler,
  ) {
    super('reservation-sweeper', scheduler, { everyMs: deps.config.reservationSweepSeconds * 1000 });
  }

  /** One sweep now (also what the schedule runs); resolves when it is done. */
  sweep(): Promise<void> {
    return this.runNow();
  }

  /** Resolves when no sweep is running (the one in flight, if any, has finished). */
  override settled(): Promise<void> {
    return super.settled();
  }

  protected async run(): Promise<void> {
    try {
      const ids = await releaseExpiredReservations(this.deps);
      if (ids.length > 0) this.deps.logger.info({ orders: ids.length }, 'released expired reservations');
    } catch (err) {
      this.deps.logger.error({ err }, 'releasing expired reservations failed');
    }
  }
}
