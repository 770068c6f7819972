/**
 * Refusals of the guard: the request limit and calls on a path locked for guessed codes (HTTP
 * 429), and connections closed at accept beyond HTTP_MAX_CONNECTIONS_PER_ADDRESS.
 */
import { Counter, type Registry } from 'prom-client';

export type RefusalKind = 'request_limit' | 'code_guessing' | 'connections_per_address';

export class GuardMetrics {
  readonly #refusals: Counter<'limit'>;

  constructor(registry: Registry) {
    this.#refusals = new Counter({
      name: 'cloud_rate_limit_refusals_total',
      help: 'Requests refused with 429: request_limit (too many requests of a key owner or address) or code_guessing (a path locked after wrong codes); connections_per_address: connections closed at accept (too many open from one address)',
      labelNames: ['limit'],
      registers: [registry],
    });
    for (const limit of ['request_limit', 'code_guessing', 'connections_per_address'] as const) this.#refusals.inc({ limit }, 0);
  }

  refused(limit: RefusalKind): void {
    this.#refusals.inc({ limit });
  }
}
