/** {base_url} = /api/v4: the marketplace operations, authenticated by X-Service-Api-Key. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  cancelPositionSchema,
  createOrderAnswerSchema,
  createOrderSchema,
  errorResponses,
  extensionAnswerSchema,
  extensionSchema,
  orderDetailRequestSchema,
  reservationResultSchema,
  updateAnswerSchema,
  updateOrderSchema,
} from '../../contract/index.js';
import { idempotentErrorResponses, idempotentRequestHeaders } from '../../contract/common.js';
import { noCellsEnvelopeSchema } from '../../contract/orders.js';
import {
  capacityAnswerOut,
  capacityRequestSchema,
  lockerDetailOut,
  lockerDetailQuery,
  lockerListOut,
  lockerListQuery,
  orderDetailOut,
} from '../../contract/lockers.js';
import { CodeGuessGuard } from '../../guard/code-guessing.js';
import { availableLockers, capacity, lockerDetail } from '../../lockers/locker-queries.js';
import { cancelPosition } from '../../orders/cancel-position.js';
import { createOrder } from '../../orders/create-order.js';
import { extendStorage } from '../../orders/extend-storage.js';
import { orderDetail } from '../../orders/order-detail.js';
import { updateOrder } from '../../orders/update-order.js';
import type { ServiceDeps } from '../../services.js';
import { requireJsonBody } from '../error-handler.js';
import { idempotentRoute, scopedDeps } from '../idempotency.js';
import { callRecorder, recordOrderApiCalls } from '../order-api-calls.js';
import { inRequestSpan } from '../request-span.js';
import { marketplaceOf } from '../plugins/authentication.js';

export const V4_PREFIX = '/api/v4';

export interface MarketplaceRoutesOptions {
  deps: ServiceDeps;
}

const security = [{ serviceApiKey: [] }];

export const marketplaceRoutes: FastifyPluginAsyncZod<MarketplaceRoutesOptions> = (app, { deps }) => {
  const guessGuard = new CodeGuessGuard(deps);
  const idempotent = idempotentRoute(deps);
  /** Order create and update may answer 32 with the nearestLockers extension. */
  const orderWriteErrors = { ...idempotentErrorResponses, 400: noCellsEnvelopeSchema };

  app.requireApiKey('marketplace');
  app.addHook('preValidation', requireJsonBody);
  recordOrderApiCalls(app, deps, V4_PREFIX);

  app.put(
    '/auth/delivery/smartorder/create',
    {
      schema: {
        operationId: 'createSmartOrder',
        tags: ['orders'],
        summary: 'Create an order and reserve cells for its parcels',
        security,
        headers: idempotentRequestHeaders,
        body: createOrderSchema,
        response: { 200: reservationResultSchema, ...orderWriteErrors },
      },
      preHandler: idempotent.preHandler,
      onSend: idempotent.onSend,
    },
    async (req) => inRequestSpan(req, 'smartorder/create', () => createOrder(scopedDeps(deps, req, callRecorder(deps, req, V4_PREFIX)), marketplaceOf(req), req.body, 'smartorder/create')),
  );

  app.put(
    '/auth/delivery/order/create',
    {
      schema: {
        operationId: 'createOrder',
        tags: ['orders'],
        summary: 'Create an order without reserving cells (fitting free cells must exist now, else 32)',
        security,
        headers: idempotentRequestHeaders,
        body: createOrderSchema,
        response: { 200: createOrderAnswerSchema, ...orderWriteErrors },
      },
      preHandler: idempotent.preHandler,
      onSend: idempotent.onSend,
    },
    async (req) => inRequestSpan(req, 'order/create', () => createOrder(scopedDeps(deps, req, callRecorder(deps, req, V4_PREFIX)), marketplaceOf(req), req.body, 'order/create')),
  );

  app.put(
    '/auth/delivery/order/update',
    {
      schema: {
        operationId: 'updateOrder',
        tags: ['orders'],
        summary: 'Update an order in state New (205, 206)',
        security,
        headers: idempotentRequestHeaders,
        body: updateOrderSchema,
        response: { 200: updateAnswerSchema, ...orderWriteErrors },
      },
      preHandler: idempotent.preHandler,
      onSend: idempotent.onSend,
    },
    async (req) => updateOrder(scopedDeps(deps, req), marketplaceOf(req), req.body),
  );

  app.put(
    '/auth/delivery/order/place/cancel',
    {
      schema: {
        operationId: 'cancelPosition',
        tags: ['orders'],
        summary: 'Cancel one parcel position (205, 207, 208, 211)',
        security,
        headers: idempotentRequestHeaders,
        body: cancelPositionSchema,
        response: { 200: createOrderAnswerSchema, ...idempotentErrorResponses },
      },
      preHandler: idempotent.preHandler,
      onSend: idempotent.onSend,
    },
    async (req) => cancelPosition(scopedDeps(deps, req), marketplaceOf(req), req.body),
  );

  app.post(
    '/auth/delivery/order/extension',
    {
      schema: {
        operationId: 'extendStorage',
        tags: ['orders'],
        summary: 'Extend storage by 72 hours (state 3 only; 250, 252)',
        security,
        headers: idempotentRequestHeaders,
        body: extensionSchema,
        response: { 200: extensionAnswerSchema, ...idempotentErrorResponses },
      },
      preHandler: idempotent.preHandler,
      onSend: idempotent.onSend,
    },
    async (req) => extendStorage(scopedDeps(deps, req), marketplaceOf(req), req.body.extId),
  );

  app.post(
    '/auth/delivery/order/detail',
    {
      schema: {
        operationId: 'getOrderDetail',
        tags: ['orders'],
        summary: 'Where a courier finds the order, by parcel barcode (200, 203, 210; 429 after too many wrong codes)',
        security,
        body: orderDetailRequestSchema,
        response: { 200: orderDetailOut, ...errorResponses },
      },
    },
    async (req) => guessGuard.guard(marketplaceOf(req), req.body.barcode, 'order/detail', () => orderDetail(deps, marketplaceOf(req), req.body)),
  );

  app.post(
    '/auth/postamat/capacity',
    {
      schema: {
        operationId: 'getCapacity',
        tags: ['postamats'],
        summary: 'Free cells for a parcel size from the delivery date on (extension: several lockers with postamatIds)',
        security,
        body: capacityRequestSchema,
        response: { 200: capacityAnswerOut, ...errorResponses },
      },
    },
    async (req) => capacity(deps, marketplaceOf(req), req.body),
  );

  app.get(
    '/auth/postamat/available',
    {
      schema: {
        operationId: 'listLockers',
        tags: ['postamats'],
        summary: 'Active lockers the marketplace may use, with dayOffs',
        security,
        querystring: lockerListQuery,
        response: { 200: lockerListOut, ...errorResponses },
      },
    },
    async (req) => ({ postamats: await availableLockers(deps, marketplaceOf(req), req.query) }),
  );

  app.get(
    '/auth/postamat/get-by-id',
    {
      schema: {
        operationId: 'getLocker',
        tags: ['postamats'],
        summary: 'One locker with its cells',
        security,
        querystring: lockerDetailQuery,
        response: { 200: lockerDetailOut, ...errorResponses },
      },
    },
    async (req) => lockerDetail(deps, marketplaceOf(req), req.query.postamatId, req.query.cellsType),
  );
  return Promise.resolve();
};
