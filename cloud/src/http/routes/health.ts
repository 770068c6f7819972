/** Liveness and database reachability for load balancers. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { pingDatabase } from '../../db/database.js';
import type { ServiceDeps } from '../../services.js';

export const healthRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
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
  return Promise.resolve();
};
