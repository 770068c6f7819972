/** Reservation metrics: parcels placed into cells or rejected (by reason), and the allocator's time. */
import { Counter, Histogram, type Registry } from 'prom-client';

export type RejectionReason = 'temporary' | 'permanent';

export class ReservationMetrics {
  readonly #placed: Counter;
  readonly #rejected: Counter<'reason'>;
  readonly #allocation: Histogram;
  readonly #occupancyReads: Counter<'source'>;

  constructor(registry: Registry) {
    this.#placed = new Counter({
      name: 'cloud_reservation_parcels_placed_total',
      help: 'Parcels placed into cells by order creation (smartorder/create and order/create)',
      registers: [registry],
    });
    this.#rejected = new Counter({
      name: 'cloud_reservation_parcels_rejected_total',
      help: 'Parcels order creation found no cell for: temporary (no free cell now) or permanent (fits no cell of the locker)',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.#allocation = new Histogram({
      name: 'cloud_allocation_duration_seconds',
      help: 'Time the allocator took to place one order’s parcels',
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
      registers: [registry],
    });
    this.#occupancyReads = new Counter({
      name: 'cloud_reservation_occupancy_reads_total',
      help: "Where a reservation found the locker's cells and holders: memory (the process's view was current) or database (read again)",
      labelNames: ['source'],
      registers: [registry],
    });
    for (const reason of ['temporary', 'permanent'] as const) this.#rejected.inc({ reason }, 0);
    for (const source of ['memory', 'database'] as const) this.#occupancyReads.inc({ source }, 0);
  }

  /** A reservation used the process's view of the locker (memory) or read the locker again (database). */
  occupancyRead(source: 'memory' | 'database'): void {
    this.#occupancyReads.inc({ source });
  }

  /** Times `allocate` and counts what it placed and rejected. */
  allocated<T extends { cells: readonly { barcodes: readonly string[] }[]; temporarilyRejected: readonly unknown[]; permanentlyRejected: readonly unknown[] }>(
    allocate: () => T,
  ): T {
    const stop = this.#allocation.startTimer();
    const result = allocate();
    stop();
    let placed = 0;
    for (const cell of result.cells) placed += cell.barcodes.length;
    if (placed > 0) this.#placed.inc(placed);
    if (result.temporarilyRejected.length > 0) this.#rejected.inc({ reason: 'temporary' }, result.temporarilyRejected.length);
    if (result.permanentlyRejected.length > 0) this.#rejected.inc({ reason: 'permanent' }, result.permanentlyRejected.length);
    return result;
  }
}
