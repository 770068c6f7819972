/** Sandbox lockers the cloud did not start because its port block has no place for them. */
import { Counter, type Registry } from 'prom-client';

/** no_slot: every slot of the block is taken; too_many_links: more hardware links than a slot holds. */
export type SandboxRefusal = 'no_slot' | 'too_many_links';

export class SandboxMetrics {
  readonly #refused: Counter<'reason'>;

  constructor(registry: Registry) {
    this.#refused = new Counter({
      name: 'cloud_sandbox_lockers_refused_total',
      help: 'Sandbox locker starts refused for the port block: no_slot (SANDBOX_MAX_LOCKERS are running) or too_many_links (more buses and scanner than a slot holds)',
      labelNames: ['reason'],
      registers: [registry],
    });
    for (const reason of ['no_slot', 'too_many_links'] as const) this.#refused.inc({ reason }, 0);
  }

  refused(reason: SandboxRefusal): void {
    this.#refused.inc({ reason });
  }
}
