/**
 * GET /metrics: the cloud's metrics in the Prometheus text format (metrics/cloud-metrics.ts).
 * Open by default, like most exporters (keep the port on an internal network); with
 * METRICS_REQUIRE_KEY=true it needs an operator key, in `X-Operator-Api-Key` or as
 * `Authorization: Bearer <key>` (what Prometheus's scrape `authorization` sends). Not in the
 * OpenAPI document, which describes the JSON API: docs/operations.md lists the metrics.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ServiceDeps } from '../../services.js';
import { API_KEY_HEADERS, authenticateOperator } from '../auth.js';

function bearer(header: string | undefined): string | undefined {
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1];
}

export const metricsRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  const { registry } = deps.metrics;
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (deps.config.metricsRequireKey) {
      await authenticateOperator(deps.cdb, req.headers[API_KEY_HEADERS.operator] ?? bearer(req.headers.authorization));
    }
    const text = await registry.metrics();
    return reply.type(registry.contentType).send(text);
  });
  return Promise.resolve();
};
