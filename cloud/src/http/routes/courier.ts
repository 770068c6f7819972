/** {courier_base_url} = /api/v1: the courier route operation, authenticated by Partner-Api-Key. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { idempotentErrorResponses, idempotentRequestHeaders } from '../../contract/common.js';
import { courierWithRouteOut, courierWithRouteSchema } from '../../contract/couriers.js';
import { courierWithRoute } from '../../couriers/route-sheet.js';
import type { ServiceDeps } from '../../services.js';
import { requireJsonBody } from '../error-handler.js';
import { idempotentRoute, scopedDeps } from '../idempotency.js';
import { partnerOf } from '../plugins/authentication.js';

export const V1_PREFIX = '/api/v1';

export const courierRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  app.requireApiKey('partner');
  app.addHook('preValidation', requireJsonBody);
  const idempotent = idempotentRoute(deps);

  app.put(
    '/auth/couriers/courier-with-route',
    {
      schema: {
        operationId: 'registerCourierRoute',
        tags: ['couriers'],
        summary: 'Register or update a courier and create a route sheet (500, 602, 604)',
        security: [{ partnerApiKey: [] }],
        headers: idempotentRequestHeaders,
        body: courierWithRouteSchema,
        response: { 200: courierWithRouteOut, ...idempotentErrorResponses },
      },
      preHandler: idempotent.preHandler,
      onSend: idempotent.onSend,
    },
    async (req) => courierWithRoute(scopedDeps(deps, req), partnerOf(req), req.body),
  );
  return Promise.resolve();
};
