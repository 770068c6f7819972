/**
 * Operator routes for notifications and locker alerts, under /operator (X-Operator-Api-Key, as
 * the other operator routes):
 *   GET  /operator/notifications?status=failing|pending|delivered&marketplaceId&externalId&beforeId&limit
 *   POST /operator/notifications/redeliver   {"ids":[...]} or {"failing":true,"marketplaceId"?:...}
 *   GET  /operator/alerts?postamatId&severity&beforeId&limit
 * Register with `{ prefix: OPERATOR_PREFIX, deps }`.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LIMITS, errorResponses, positiveInt32, requestString } from '../contract/common.js';
import { API_KEY_HEADERS, authenticateOperator } from '../http/auth.js';
import { noteCaller } from '../http/request-log.js';
import { requireJsonBody } from '../http/error-handler.js';
import { listAlerts } from '../locker-events/alerts.js';
import type { ServiceDeps } from '../services.js';
import { listNotifications, NOTIFICATION_STATUSES, redeliver } from './operator-store.js';

export interface NotificationRoutesOptions {
  deps: Pick<ServiceDeps, 'cdb' | 'clock' | 'signals'>;
}

const security = [{ operatorApiKey: [] }];
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const isoTime = z.string().nullable().describe('UTC, ISO 8601');
const limit = z.coerce.number().int().min(1).max(1000).default(100);
const rowId = z.coerce.number().int().positive();
const marketplaceIdSchema = requestString(LIMITS.idLength).min(1);

const notificationView = z.object({
  id: z.int(),
  uid: z.string().describe('sent as X-Notification-Id'),
  marketplaceId: z.string(),
  orderId: z.string(),
  externalId: z.string().nullable(),
  kind: z.string(),
  body: z.unknown().describe('the notification object; pick-up codes masked'),
  createdAt: isoTime,
  attempts: z.int(),
  nextAttemptAt: isoTime,
  lastAttemptAt: isoTime,
  lastStatus: z.int().nullable(),
  lastError: z.string().nullable(),
  failingSince: isoTime,
  deliveredAt: isoTime,
});

const alertView = z.object({
  id: z.int(),
  postamatId: z.int(),
  dseq: z.int().nullable(),
  kind: z.string(),
  severity: z.string(),
  cellId: z.int().nullable(),
  orderId: z.string().nullable(),
  detail: z.unknown(),
  occurredAt: isoTime,
  receivedAt: isoTime,
});

export const notificationOperatorRoutes: FastifyPluginAsyncZod<NotificationRoutesOptions> = (app, { deps }) => {
  app.addHook('onRequest', async (req) => {
    noteCaller(req, 'operator', await authenticateOperator(deps.cdb, req.headers[API_KEY_HEADERS.operator]));
  });
  app.addHook('preValidation', requireJsonBody);

  app.get(
    '/notifications',
    {
      schema: {
        tags: ['operator'],
        summary: 'List notifications (default: failing ones), newest first',
        security,
        querystring: z.object({
          status: z.enum(NOTIFICATION_STATUSES).default('failing'),
          marketplaceId: marketplaceIdSchema.optional(),
          externalId: requestString(LIMITS.idLength).min(1).optional().describe("the order's externalId or platform id"),
          beforeId: rowId.optional(),
          limit,
        }),
        response: { 200: z.object({ notifications: z.array(notificationView) }), ...errorResponses },
      },
    },
    async (req) => {
      const q = req.query;
      const rows = await listNotifications(deps.cdb.db, { status: q.status, marketplaceId: q.marketplaceId, orderExternalId: q.externalId, beforeId: q.beforeId, limit: q.limit });
      return {
        notifications: rows.map((r) => ({
          ...r,
          createdAt: iso(r.createdAt),
          nextAttemptAt: iso(r.nextAttemptAt),
          lastAttemptAt: iso(r.lastAttemptAt),
          failingSince: iso(r.failingSince),
          deliveredAt: iso(r.deliveredAt),
        })),
      };
    },
  );

  app.post(
    '/notifications/redeliver',
    {
      schema: {
        tags: ['operator'],
        summary: 'Make notifications due now (with every undelivered one of their orders, in order)',
        security,
        body: z.union([
          z.object({ ids: z.array(rowId).min(1).max(LIMITS.idsPerRequest) }),
          z.object({ failing: z.literal(true), marketplaceId: marketplaceIdSchema.optional() }),
        ]),
        response: { 200: z.object({ orders: z.int(), notifications: z.int() }), ...errorResponses },
      },
    },
    async (req) => {
      const result = await redeliver(deps.cdb, deps.clock.now(), req.body);
      if (result.notifications > 0) deps.signals.notificationsRecorded();
      return result;
    },
  );

  app.get(
    '/alerts',
    {
      schema: {
        tags: ['operator'],
        summary: "Locker facts kept for operators (alarms, keypad, cell flags, facts that met a changed intent), newest first",
        security,
        querystring: z.object({
          postamatId: z.coerce.number().pipe(positiveInt32).optional(),
          severity: z.enum(['info', 'warning']).optional(),
          beforeId: rowId.optional(),
          limit,
        }),
        response: { 200: z.object({ alerts: z.array(alertView) }), ...errorResponses },
      },
    },
    async (req) => {
      const rows = await listAlerts(deps.cdb.db, { lockerId: req.query.postamatId, severity: req.query.severity, beforeId: req.query.beforeId, limit: req.query.limit });
      return {
        alerts: rows.map((r) => ({
          id: r.id,
          postamatId: r.lockerId,
          dseq: r.dseq,
          kind: r.kind,
          severity: r.severity,
          cellId: r.cellId,
          orderId: r.orderId,
          detail: r.detail,
          occurredAt: iso(r.occurredAt),
          receivedAt: iso(r.receivedAt),
        })),
      };
    },
  );
  return Promise.resolve();
};
