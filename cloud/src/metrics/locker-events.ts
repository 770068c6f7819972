/** Locker events the cloud applied, by event type (the protocol's closed set, so bounded). */
import { Counter, type Registry } from 'prom-client';

export class LockerEventMetrics {
  readonly #applied: Counter<'type'>;

  constructor(registry: Registry) {
    this.#applied = new Counter({
      name: 'cloud_locker_events_applied_total',
      help: 'Lockers’ events applied by the cloud, by event type',
      labelNames: ['type'],
      registers: [registry],
    });
  }

  applied(type: string): void {
    this.#applied.inc({ type });
  }
}
