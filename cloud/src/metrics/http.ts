/**
 * HTTP request metrics: one count per answered request by route pattern (never the raw URL, so
 * ids in paths add no series), method, status and the envelope's resultCode, and a duration
 * histogram by route and method. Recorded in one onResponse hook of the server: two label
 * lookups per request, no I/O.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Route label of requests that matched no route (404, refusals before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

const resultCodes = new WeakMap<FastifyReply, number>();

/** Remembers the envelope's resultCode of an answer (error-handler.ts calls it for every envelope). */
export function noteResultCode(reply: FastifyReply, resultCode: number): void {
  resultCodes.set(reply, resultCode);
}

export class HttpMetrics {
  readonly #requests: Counter<'route' | 'method' | 'status' | 'result_code'>;
  readonly #duration: Histogram<'route' | 'method'>;

  constructor(registry: Registry) {
    this.#requests = new Counter({
      name: 'cloud_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method, status and resultCode (0: an answer without the error envelope)',
      labelNames: ['route', 'method', 'status', 'result_code'],
      registers: [registry],
    });
    this.#duration = new Histogram({
      name: 'cloud_http_request_duration_seconds',
      help: 'Time from a request to its answer, by route pattern and method',
      labelNames: ['route', 'method'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  }

  /** Adds the onResponse hook to the server (covers every route and every refusal). */
  install(server: FastifyInstance): void {
    server.addHook('onResponse', (req, reply, done) => {
      const route = req.routeOptions.url ?? UNMATCHED_ROUTE;
      const method = req.method;
      this.#requests.inc({ route, method, status: reply.statusCode, result_code: resultCodes.get(reply) ?? 0 });
      this.#duration.observe({ route, method }, reply.elapsedTime / 1000);
      done();
    });
  }
}
