/** {courier_base_url} = /api/v1: the courier route operation, authenticated by Partner-Api-Key. */
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../contract/common.js';
import { courierWithRouteOut, courierWithRouteSchema } from '../../contract/couriers.js';
import { courierWithRoute } from '../../couriers/route-sheet.js';
import type { PartnerRow } from '../../db/schema.js';
import type { ServiceDeps } from '../../services.js';
import { API_KEY_HEADERS, authenticatePartner } from '../auth.js';
import { noteCaller } from '../request-log.js';
import { requireJsonBody } from '../error-handler.js';

export const V1_PREFIX = '/api/v1';

export const courierRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  const callers = new WeakMap<FastifyRequest, PartnerRow>();
  app.addHook('onRequest', async (req) => {
    const partner = await authenticatePartner(deps.cdb, req.headers[API_KEY_HEADERS.partner]);
    callers.set(req, partner);
    noteCaller(req, 'partner', partner.id);
  });
  app.addHook('preValidation', requireJsonBody);

  app.put(
    '/auth/couriers/courier-with-route',
    {
      schema: {
        tags: ['couriers'],
        summary: 'Register or update a courier and create a route sheet (500, 602, 604)',
        security: [{ partnerApiKey: [] }],
        body: courierWithRouteSchema,
        response: { 200: courierWithRouteOut, ...errorResponses },
      },
    },
    async (req) => courierWithRoute(deps, callers.get(req)!, req.body),
  );
  return Promise.resolve();
};
