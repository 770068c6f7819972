/**
 * Reservations not loaded by the end of their dateDelivery (locker time) plus a grace are
 * released: the pending parcels lose their cells, the order stays New and a later load takes any
 * fitting free cell (DESIGN.md, "Reservations"). `ReservationSweeper` runs the release periodically.
 */
import { OrderState, ParcelState } from '../../../shared/src/enums.js';
import { lockerTransaction } from '../db/transaction.js';
import { addDays } from '../lockers/locker-time.js';
import { applyTransition } from '../lifecycle/apply.js';
import { parcelStep } from '../lifecycle/decide.js';
import { stepParcel } from '../lifecycle/parcel-step.js';
import { signalApplied } from '../lifecycle/signals.js';
import type { Job, Scheduler } from '../scheduler.js';
import type { ServiceDeps } from '../services.js';
import { reservationExpiry } from './intent.js';
import { lifecycleDeps } from './lifecycle-deps.js';
import { loadParcels } from './order-store.js';

export { reservationExpiry } from './intent.js';

/** Releases every expired reservation; returns the ids of the orders it released. */
export async function releaseExpiredReservations(deps: ServiceDeps): Promise<string[]> {
  const { cdb, clock, config } = deps;
  const now = clock.now();
  // No time zone is more than a day ahead of UTC: later dates cannot have expired yet.
  const latest = addDays(new Date(now).toISOString().slice(0, 10), 1);
  const candidates = await cdb.db
    .selectFrom('orders')
    .innerJoin('lockers', 'lockers.id', 'orders.locker_id')
    .select(['orders.id', 'orders.locker_id', 'orders.date_delivery', 'lockers.timezone'])
    .where('orders.state', '=', OrderState.New)
    .where('orders.date_delivery', '<=', latest)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('parcels')
          .select('parcels.barcode')
          .whereRef('parcels.order_id', '=', 'orders.id')
          .where('parcels.state', '=', ParcelState.Pending)
          .where('parcels.cell_id', 'is not', null),
      ),
    )
    .execute();
  const released: string[] = [];
  for (const c of candidates) {
    if (now < reservationExpiry(c.date_delivery, c.timezone, config.reservationGraceMinutes)) continue;
    const done = await lockerTransaction(cdb, [c.locker_id], async (tx) => {
      const order = await tx.selectFrom('orders').selectAll().where('id', '=', c.id).executeTakeFirst();
      // Re-checked under the lock: the order may have been loaded, moved or postponed meanwhile.
      if (!order || order.state !== OrderState.New || order.locker_id !== c.locker_id) return false;
      if (now < reservationExpiry(order.date_delivery, c.timezone, config.reservationGraceMinutes)) return false;
      const parcels = await loadParcels(tx, order.id);
      const held = parcels.filter((p) => p.state === ParcelState.Pending && p.cell_id !== null);
      if (held.length === 0) return false;
      const locker = await tx.selectFrom('lockers').selectAll().where('id', '=', order.locker_id).executeTakeFirstOrThrow();
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
      released.push(c.id);
      signalApplied(deps.signals, [done]);
    }
  }
  return released;
}

/** Runs the release every `reservationSweepSeconds` as a scheduler job; one run at a time. */
export class ReservationSweeper {
  readonly #job: Job<void>;

  constructor(
    private readonly deps: ServiceDeps,
    scheduler: Scheduler,
  ) {
    this.#job = scheduler.job('reservation-sweeper', () => this.#sweep(), { everyMs: deps.config.reservationSweepSeconds * 1000 });
  }

  start(): Promise<void> {
    this.#job.start();
    return Promise.resolve();
  }

  /** One sweep now (also what the schedule runs); resolves when it is done. */
  sweep(): Promise<void> {
    return this.#job.run();
  }

  /** Resolves when no sweep is running (the one in flight, if any, has finished). */
  async settled(): Promise<void> {
    await this.#job.idle();
  }

  async #sweep(): Promise<void> {
    try {
      const ids = await releaseExpiredReservations(this.deps);
      if (ids.length > 0) this.deps.logger.info({ orders: ids.length }, 'released expired reservations');
    } catch (err) {
      this.deps.logger.error({ err }, 'releasing expired reservations failed');
    }
  }

  async stop(): Promise<void> {
    await this.#job.stop();
  }
}
