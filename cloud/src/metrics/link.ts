/** The locker link's refusals: messages over the size limit, by where they were stopped. */
import { Counter, type Registry } from 'prom-client';

/** broker: the embedded broker cut the connection at the packet's header; link: the cloud's client refused a delivered message. */
export type OversizedAt = 'broker' | 'link';

export class LinkMetrics {
  readonly #oversized: Counter<'at'>;

  constructor(registry: Registry) {
    this.#oversized = new Counter({
      name: 'cloud_mqtt_oversized_messages_total',
      help: 'Locker messages refused for their size before any parsing: broker (the embedded broker closed the connection) or link (the cloud ignored a delivered one)',
      labelNames: ['at'],
      registers: [registry],
    });
    for (const at of ['broker', 'link'] as const) this.#oversized.inc({ at }, 0);
  }

  oversized(at: OversizedAt): void {
    this.#oversized.inc({ at });
  }
}
