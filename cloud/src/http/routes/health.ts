/** Liveness and database reachability for load balancers. */
import { sql } from 'kysely';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ServiceDeps } from '../../services.js';

export const healthRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['health'],
        summary: 'Service and database health',
        response: { 200: z.object({ status: z.literal('ok'), database: z.enum(['sqlite', 'postgres']) }) },
      },
    },
    async () => {
      await sql`select 1`.execute(deps.cdb.db);
      return { status: 'ok' as const, database: deps.cdb.engine };
    },
  );
  return Promise.resolve();
};
