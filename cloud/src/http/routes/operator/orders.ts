/** /operator orders: search, one order's timeline, and what an operator does for its customer. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requestString } from '../../../contract/common.js';
import { MAX_EXTENSION_DAYS, extendOrder } from '../../../operator/order-actions.js';
import { careForOrder } from '../../../operator/order-care.js';
import { HANDOVER_DEFAULT_MAX_AGE_SECONDS, HANDOVER_MAX_AGE_SECONDS, HANDOVER_REASON, handOverOrder } from '../../../operator/order-handover.js';
import { orderSummary, orderTimeline, searchOrders, storageEndingToday, TIMELINE_KINDS } from '../../../operator/order-views.js';
import type { ServiceDeps } from '../../../services.js';
import { operatorOf } from '../../plugins/authentication.js';
import { iso, isoTime, noteSchema, operatorErrors, pageOf, paging, reasonSchema, security } from './shared.js';

export const orderItem = z
  .object({
    orderId: z.string(),
    externalId: z.string(),
    marketplaceId: z.string(),
    lockerId: z.int(),
    state: z.int().describe('OrderState of the API'),
    phones: z.array(z.string()).describe('masked: country code and last four digits'),
    barcodes: z.array(z.string()),
    holdUntil: isoTime,
    createdAt: isoTime,
    stateChangedAt: isoTime,
  })
  .meta({
    example: {
      orderId: '0b6c1f3e-6d1e-4a57-9f0e-6f1c2a3b4c5d', externalId: 'ORD-1', marketplaceId: 'shop-one', lockerId: 101, state: 3,
      phones: ['+7******4567'], barcodes: ['ORD-1-P1'], holdUntil: '2030-03-07T09:00:00.000Z', createdAt: '2030-03-04T08:00:00.000Z',
      stateChangedAt: '2030-03-04T09:00:00.000Z',
    },
  });

const timelineView = z.object({
  orderId: z.string(),
  externalId: z.string(),
  marketplaceId: z.string(),
  lockerId: z.int(),
  state: z.int(),
  entries: z.array(
    z
      .object({ at: z.string(), kind: z.enum(TIMELINE_KINDS), summary: z.string(), detail: z.record(z.string(), z.unknown()) })
      .meta({ example: { at: '2030-03-04T09:00:00.000Z', kind: 'notification_attempt', summary: 'order-status: HTTP 503: HTTP 503', detail: { notificationId: 7, status: 503, error: 'HTTP 503' } } }),
  ),
});

const delivery = z.enum(['delivered', 'failing', 'pending']).describe('delivered; failing: past the failing limit, still retried; pending: on its way');

const summaryView = z
  .object({
    orderId: z.string(),
    externalId: z.string(),
    marketplaceId: z.string(),
    lockerId: z.int(),
    lockerName: z.string().nullable(),
    timezone: z.string().nullable().describe("the locker's"),
    state: z.int().describe('OrderState of the API'),
    stateChangedAt: isoTime,
    createdAt: isoTime,
    loadedAt: isoTime,
    holdUntil: isoTime.describe('the end of storage'),
    phones: z.array(z.string()).describe('masked'),
    parcels: z.array(z.object({ barcode: z.string(), state: z.string().describe('ParcelState'), cellId: z.int().nullable() })),
    code: z.object({
      active: z.boolean().describe('a pick-up code is active (Courier loaded)'),
      sentAt: isoTime.describe('when the latest user-access-code notification was recorded'),
      delivery: delivery.nullable(),
    }),
    marketplace: z
      .array(
        z.object({
          notificationId: z.int(),
          kind: z.string().describe('order-status, user-access-code or expiration-date-changes'),
          said: z.string().nullable().describe("order-status: the event id; expiration-date-changes: the new end; user-access-code: null (the code is not shown)"),
          delivery,
          recordedAt: z.string(),
          deliveredAt: isoTime,
          attempts: z.int(),
          lastStatus: z.int().nullable().describe("the receiver's latest HTTP status"),
          lastError: z.string().nullable(),
        }),
      )
      .describe('what the marketplace was told, newest first, and whether it got it'),
  })
  .meta({ id: 'OrderSummary' });

const orderParams = z.object({ orderId: requestString(64).min(1).describe('the platform order id') });

export const orderRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  app.get(
    '/orders',
    {
      schema: {
        operationId: 'searchOrders',
        tags: ['operator'],
        summary: 'Find orders by externalId, barcode or phone (exact or suffix), newest first; phones masked',
        security,
        querystring: z.object({ query: requestString(64).trim().min(3).describe('externalId, barcode or phone (4-15 digits), whole or its end'), ...paging }),
        response: { 200: pageOf(orderItem), ...operatorErrors },
      },
    },
    async (req) => {
      const page = await searchOrders(deps, req.query.query, req.query.page, req.query.pageSize);
      return { ...page, items: page.items.map((o) => ({ ...o, holdUntil: iso(o.holdUntil), createdAt: iso(o.createdAt), stateChangedAt: iso(o.stateChangedAt) })) };
    },
  );

  app.get(
    '/orders/storage-ending-today',
    {
      schema: {
        operationId: 'listStorageEndingToday',
        tags: ['operator'],
        summary: "Parcels waiting for pick-up whose storage ends today (in their locker's time zone), earliest deadline first; phones masked",
        security,
        querystring: z.object(paging),
        response: { 200: pageOf(orderItem.extend({ lockerName: z.string() })), ...operatorErrors },
      },
    },
    async (req) => {
      const page = await storageEndingToday(deps, req.query.page, req.query.pageSize);
      return { ...page, items: page.items.map((o) => ({ ...o, holdUntil: iso(o.holdUntil), createdAt: iso(o.createdAt), stateChangedAt: iso(o.stateChangedAt) })) };
    },
  );

  app.get(
    '/orders/:orderId',
    {
      schema: {
        operationId: 'getOrderSummary',
        tags: ['operator'],
        summary: "One order as a person reads it first: state, cells, deadline, pick-up code status, what the marketplace was told and whether it got it",
        security,
        params: orderParams,
        response: { 200: summaryView, ...operatorErrors },
      },
    },
    async (req) => orderSummary(deps, req.params.orderId),
  );

  app.get(
    '/orders/:orderId/timeline',
    {
      schema: {
        operationId: 'getOrderTimeline',
        tags: ['operator'],
        summary: "One order's whole history, oldest first: API calls, transitions, commands, locker events, alerts, notifications and attempts",
        security,
        params: orderParams,
        response: { 200: timelineView, ...operatorErrors },
      },
    },
    async (req) => orderTimeline(deps, req.params.orderId),
  );

  app.post(
    '/orders/:orderId/extend',
    {
      schema: {
        operationId: 'extendOrderStorage',
        tags: ['operator'],
        summary: "Extend an order's storage by days or up to a moment (Courier loaded only, like order/extension; non-working days push it on)",
        security,
        params: orderParams,
        body: z
          .union([
            z.object({ days: z.int().min(1).max(MAX_EXTENSION_DAYS), reason: reasonSchema, note: noteSchema }),
            z.object({ until: z.iso.datetime({ offset: true }).max(40).describe('ISO 8601 with an offset'), reason: reasonSchema, note: noteSchema }),
          ])
          .meta({ example: { days: 2, reason: 'customer in hospital' } }),
        response: {
          200: z.object({ orderId: z.string(), externalId: z.string(), holdUntil: z.string(), dateStorage: z.string().describe('as order/extension answers it') }),
          ...operatorErrors,
        },
      },
    },
    async (req) => {
      const body = req.body;
      const request = 'days' in body ? { days: body.days } : { until: Date.parse(body.until) };
      return extendOrder(deps, { operator: operatorOf(req).id, reason: body.reason, note: body.note ?? null }, req.params.orderId, request);
    },
  );

  const careAnswer = z
    .object({ orderId: z.string(), externalId: z.string(), state: z.int().describe('OrderState after'), rule: z.string().describe('the lifecycle row applied (docs/lifecycle.md)') })
    .meta({ id: 'OrderCareAnswer' });
  const careBody = z.object({ reason: reasonSchema, note: noteSchema }).meta({ example: { reason: 'customer lost the SMS', note: 'asked by phone' } });

  app.post(
    '/orders/:orderId/code',
    {
      schema: {
        operationId: 'regenerateOrderCode',
        tags: ['operator'],
        summary: 'Issue a new pick-up code and send it to the marketplace (Courier loaded only); the locker takes only the new one',
        description: 'Lifecycle row CR1: the new code replaces the old in the order.upsert to the locker, and a user-access-code notification carries it to the marketplace. Refused with 252 outside Courier loaded, 250 for an unknown order.',
        security,
        params: orderParams,
        body: careBody,
        response: { 200: careAnswer, ...operatorErrors },
      },
    },
    async (req) => careForOrder(deps, { operator: operatorOf(req).id, reason: req.body.reason, note: req.body.note ?? null }, req.params.orderId, 'code'),
  );

  app.post(
    '/orders/:orderId/return',
    {
      schema: {
        operationId: 'startOrderReturn',
        tags: ['operator'],
        summary: 'End storage now: the parcels in the locker are to be returned (Courier loaded only), as when storage expires',
        description: 'Lifecycle row OR1: the order goes to Return initiated, its pick-up code is revoked, and it becomes Awaiting return (order-status 7 to the marketplace) once the locker has applied the revocation. Refused with 252 outside Courier loaded, 250 for an unknown order.',
        security,
        params: orderParams,
        body: careBody,
        response: { 200: careAnswer, ...operatorErrors },
      },
    },
    async (req) => careForOrder(deps, { operator: operatorOf(req).id, reason: req.body.reason, note: req.body.note ?? null }, req.params.orderId, 'return'),
  );

  app.post(
    '/orders/:orderId/handover',
    {
      schema: {
        operationId: 'handOverOrder',
        tags: ['operator'],
        summary: "Open the order's cells for the customer at the locker (Courier loaded only); the parcels count as received as after a code pick-up",
        description:
          'Lifecycle row HO1: the order.upsert, then an `order.handover` command with notAfter = now + maxAgeSeconds. The locker opens every cell ' +
          "holding the order's parcels for the customer; each parcel counts as received once its door is confirmed open (parcel.received), so the " +
          'order becomes Client received and the marketplace gets order-status 2. The outcome comes back as an `order.handover` event (operator ' +
          'alerts). Refused with 252 outside Courier loaded, 250 for an unknown order, 252 (HTTP 409) when the locker is offline, 3 when its ' +
          'agent has not announced order.handover. Audited with the reason customer_handover and the note.',
        security,
        params: orderParams,
        body: z
          .object({
            note: z.string().trim().min(1).max(500).describe("the operator's own words (kept in the audit log beside the reason customer_handover)"),
            maxAgeSeconds: z.int().min(1).max(HANDOVER_MAX_AGE_SECONDS).default(HANDOVER_DEFAULT_MAX_AGE_SECONDS),
          })
          .meta({ id: 'OrderHandover', example: { note: 'customer at the locker, code not accepted; identity checked by phone' } }),
        response: {
          202: z
            .object({
              orderId: z.string(),
              externalId: z.string(),
              lockerId: z.int(),
              state: z.int().describe('OrderState now (3: the locker has not reported yet)'),
              rule: z.string().describe('HO1'),
              cseq: z.int().describe('the order.handover command'),
              notAfter: z.int().describe('epoch ms; the locker refuses the command after it'),
            })
            .meta({ id: 'OrderHandoverAccepted' }),
          ...operatorErrors,
          409: operatorErrors[400].describe('Code 252: the locker is offline; nothing recorded (the customer is waiting now, a late open would open to nobody)'),
        },
      },
    },
    async (req, reply) => {
      const actor = { operator: operatorOf(req).id, reason: HANDOVER_REASON, note: req.body.note };
      return reply.code(202).send(await handOverOrder(deps, actor, req.params.orderId, req.body.maxAgeSeconds));
    },
  );
  return Promise.resolve();
};
