/**
 * /operator notifications (notify/operator-store.ts):
 *   GET  /operator/notifications?status=failing|pending|delivered&marketplaceId&externalId&beforeId&limit
 *   GET  /operator/notifications/receivers   each marketplace's receiver: backlog, latest attempt, state
 *   POST /operator/notifications/redeliver   {"ids":[...]}, {"failing":true,"marketplaceId"?:...},
 *                                            {"undelivered":true,"marketplaceId":...} or {"orderId":...}
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LIMITS, requestString } from '../../../contract/common.js';
import { listNotifications, NOTIFICATION_STATUSES, receivers, redeliver } from '../../../notify/operator-store.js';
import type { ServiceDeps } from '../../../services.js';
import { operatorOf } from '../../plugins/authentication.js';
import { iso, isoTime, limit, noteSchema, operatorErrors, reasonSchema, rowId, security } from './shared.js';

export interface NotificationRoutesOptions {
  deps: Pick<ServiceDeps, 'cdb' | 'clock' | 'signals'>;
}

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
  requestId: z.string().nullable().describe('X-Request-Id of the API call that caused it (sent with it); null when none did'),
}).meta({ id: 'Notification' });

export const notificationRoutes: FastifyPluginAsyncZod<NotificationRoutesOptions> = (app, { deps }) => {
  app.get(
    '/notifications',
    {
      schema: {
        operationId: 'listNotifications',
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
        response: { 200: z.object({ notifications: z.array(notificationView) }).meta({ id: 'NotificationList' }), ...operatorErrors },
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

  app.get(
    '/notifications/receivers',
    {
      schema: {
        operationId: 'listReceivers',
        tags: ['operator'],
        summary: "Each marketplace's receiver: its backlog, its latest attempt, and whether it is failing now (from its first failed attempt, not after the failing limit)",
        security,
        response: {
          200: z
            .object({
              receivers: z.array(
                z.object({
                  marketplaceId: z.string(),
                  state: z.enum(['ok', 'failing', 'idle']).describe('failing: the latest attempt failed; ok: it delivered; idle: never tried'),
                  undelivered: z.int(),
                  markedFailing: z.int().describe('undelivered past NOTIFY_FAILING_AFTER_SECONDS'),
                  oldestUndeliveredAt: isoTime,
                  lastAttemptAt: isoTime,
                  lastStatus: z.int().nullable().describe("the latest attempt's HTTP status (null: no answer)"),
                  lastError: z.string().nullable().describe("the latest attempt's error, while it is failing"),
                  lastDeliveredAt: isoTime,
                }),
              ),
            })
            .meta({ id: 'ReceiverList' }),
          ...operatorErrors,
        },
      },
    },
    async () => ({
      receivers: (await receivers(deps.cdb.db)).map(({ lastDelivered: _, ...r }) => ({
        ...r,
        oldestUndeliveredAt: iso(r.oldestUndeliveredAt),
        lastAttemptAt: iso(r.lastAttemptAt),
        lastDeliveredAt: iso(r.lastDeliveredAt),
      })),
    }),
  );

  app.post(
    '/notifications/redeliver',
    {
      schema: {
        operationId: 'redeliverNotifications',
        tags: ['operator'],
        summary: 'Make notifications due now (with every undelivered one of their orders, in order)',
        security,
        body: z
          .union([
            z.object({ ids: z.array(rowId).min(1).max(LIMITS.idsPerRequest), reason: reasonSchema.optional(), note: noteSchema }),
            z.object({ failing: z.literal(true), marketplaceId: marketplaceIdSchema.optional(), reason: reasonSchema.optional(), note: noteSchema }),
            z.object({ undelivered: z.literal(true), marketplaceId: marketplaceIdSchema, reason: reasonSchema.optional(), note: noteSchema }).describe("every undelivered notification of the marketplace's receiver, pending or failing"),
            z.object({ orderId: requestString(64).min(1), reason: reasonSchema.optional(), note: noteSchema }).describe('every undelivered notification of the order'),
          ])
          .meta({ id: 'Redelivery' }),
        response: { 200: z.object({ orders: z.int(), notifications: z.int() }).meta({ id: 'RedeliveryResult' }), ...operatorErrors },
      },
    },
    async (req) => {
      const { reason, note, ...target } = req.body;
      const result = await redeliver(deps.cdb, deps.clock.now(), target, { operator: operatorOf(req).id, reason: reason ?? null, note: note ?? null });
      if (result.notifications > 0) deps.signals.notificationsRecorded();
      return result;
    },
  );
  return Promise.resolve();
};
