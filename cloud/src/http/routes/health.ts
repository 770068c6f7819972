/**
 * Probes: `/health` is liveness with the database's reachability (its answer is unchanged);
 * `/health/ready` is readiness: 200 when the database answers, the broker link is connected
 * (unless this process runs none) and the fleet is loaded, 503 otherwise, each dependency named
 * with its state (health/dependency-checks.ts).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { pingDatabase } from '../../db/database.js';
import { checkDependencies, type DependencySources } from '../../health/dependency-checks.js';
import type { ServiceDeps } from '../../services.js';

const readinessSchema = z
  .object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.object({
    database: z.object({ status: z.enum(['up', 'down']), latencyMs: z.number() }),
    broker: z.object({ status: z.enum(['up', 'down', 'disabled']) }),
    fleet: z.object({ status: z.enum(['up', 'down']), source: z.enum(['file', 'database']) }),
  }),
  })
  .meta({ id: 'Readiness' });

export const healthRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps; dependencies: DependencySources }> = (app, { deps, dependencies }) => {
  app.get(
    '/health',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['health'],
        summary: 'Service and database health',
        response: { 200: z.object({ status: z.literal('ok'), database: z.enum(['sqlite', 'postgres']) }).meta({ id: 'Health' }) },
      },
    },
    async () => {
      await pingDatabase(deps.cdb);
      return { status: 'ok' as const, database: deps.cdb.engine };
    },
  );
  app.get(
    '/health/ready',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['health'],
        summary: 'Readiness: database, broker link and fleet',
        response: { 200: readinessSchema, 503: readinessSchema },
      },
    },
    async (_req, reply) => {
      const report = await checkDependencies(dependencies);
      return reply.code(report.ready ? 200 : 503).send({ status: report.ready ? 'ready' : 'not_ready', checks: report.checks });
    },
  );
  return Promise.resolve();
};
