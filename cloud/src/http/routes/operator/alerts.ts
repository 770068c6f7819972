/**
 * /operator alerts (locker-events/alerts.ts): alerts newest first (routine facts on request, as
 * history), acknowledge, resolve.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { positiveInt32 } from '../../../contract/common.js';
import { type Alert, listAlerts } from '../../../locker-events/alerts.js';
import { acknowledge, resolve } from '../../../operator/alert-actions.js';
import { ALERT_SEVERITIES, ALERT_STATUSES } from '../../../repositories/alerts.js';
import type { ServiceDeps } from '../../../services.js';
import { operatorOf } from '../../plugins/authentication.js';
import { iso, isoTime, limit, noteSchema, operatorErrors, reasonSchema, rowId, security } from './shared.js';

export const alertView = z
  .object({
    id: z.int(),
    postamatId: z.int(),
    dseq: z.int().nullable(),
    kind: z.string(),
    severity: z.enum(ALERT_SEVERITIES),
    cellId: z.int().nullable(),
    orderId: z.string().nullable(),
    detail: z.unknown(),
    occurredAt: isoTime,
    receivedAt: isoTime,
    status: z.enum(ALERT_STATUSES).describe('history: a routine fact, never an alert'),
    dedupKey: z.string().describe('kind:locker:cell[:more]; repeats join the active alert of the key'),
    count: z.int().describe('how many times it was seen while active'),
    lastSeenAt: isoTime,
    acknowledgedAt: isoTime,
    acknowledgedBy: z.string().nullable(),
    resolvedAt: isoTime,
    resolvedBy: z.string().nullable().describe("an operator's name, or `locker` when a later fact cleared it"),
    resolveReason: z.string().nullable(),
  })
  .meta({
    id: 'Alert',
    example: {
      id: 17, postamatId: 101, dseq: 5, kind: 'door.alarm', severity: 'warning', cellId: 3, orderId: null, detail: { kind: 'left_open' },
      occurredAt: '2030-03-04T09:00:00.000Z', receivedAt: '2030-03-04T09:00:01.000Z', status: 'open', dedupKey: 'door.alarm:101:3', count: 4,
      lastSeenAt: '2030-03-04T09:12:00.000Z', acknowledgedAt: null, acknowledgedBy: null, resolvedAt: null, resolvedBy: null, resolveReason: null,
    },
  });

export function presentAlert(a: Alert): z.infer<typeof alertView> {
  return {
    id: a.id,
    postamatId: a.lockerId,
    dseq: a.dseq,
    kind: a.kind,
    severity: a.severity,
    cellId: a.cellId,
    orderId: a.orderId,
    detail: a.detail,
    occurredAt: iso(a.occurredAt),
    receivedAt: iso(a.receivedAt),
    status: a.status,
    dedupKey: a.dedupKey,
    count: a.count,
    lastSeenAt: iso(a.lastSeenAt),
    acknowledgedAt: iso(a.acknowledgedAt),
    acknowledgedBy: a.acknowledgedBy,
    resolvedAt: iso(a.resolvedAt),
    resolvedBy: a.resolvedBy,
    resolveReason: a.resolveReason,
  };
}

const alertParams = z.object({ alertId: z.coerce.number().pipe(positiveInt32) });

export const alertRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  app.get(
    '/alerts',
    {
      schema: {
        operationId: 'listAlerts',
        tags: ['operator'],
        summary: 'Alerts of the lockers (alarms, faults, facts that met a changed intent), newest first; routine facts with include=history',
        security,
        querystring: z.object({
          postamatId: z.coerce.number().pipe(positiveInt32).optional(),
          severity: z.enum(ALERT_SEVERITIES).optional(),
          status: z.enum(ALERT_STATUSES).optional().describe('only this status (default: open, acknowledged and resolved)'),
          include: z.enum(['history']).optional().describe('history: the routine facts too (keypad attempts, doors closed, ...)'),
          beforeId: rowId.optional(),
          limit,
        }),
        response: { 200: z.object({ alerts: z.array(alertView) }).meta({ id: 'AlertList' }), ...operatorErrors },
      },
    },
    async (req) => {
      const q = req.query;
      const statuses = q.status ? [q.status] : q.include === 'history' ? ALERT_STATUSES : undefined;
      const rows = await listAlerts(deps.cdb.db, { lockerId: q.postamatId, severity: q.severity, statuses, beforeId: q.beforeId, limit: q.limit });
      return { alerts: rows.map(presentAlert) };
    },
  );

  app.post(
    '/alerts/:alertId/acknowledge',
    {
      schema: {
        operationId: 'acknowledgeAlert',
        tags: ['operator'],
        summary: 'Acknowledge an alert: someone is on it (repeats still count on it)',
        security,
        params: alertParams,
        body: z.object({ reason: reasonSchema.optional(), note: noteSchema }),
        response: { 200: alertView, ...operatorErrors },
      },
    },
    async (req) => presentAlert(await acknowledge(deps, { operator: operatorOf(req).id, reason: req.body.reason ?? null, note: req.body.note ?? null }, req.params.alertId)),
  );

  app.post(
    '/alerts/:alertId/resolve',
    {
      schema: {
        operationId: 'resolveAlert',
        tags: ['operator'],
        summary: 'Resolve an alert (a repeat afterwards opens a new one)',
        security,
        params: alertParams,
        body: z.object({ reason: reasonSchema, note: noteSchema }).meta({ example: { reason: 'door latch replaced' } }),
        response: { 200: alertView, ...operatorErrors },
      },
    },
    async (req) => presentAlert(await resolve(deps, { operator: operatorOf(req).id, reason: req.body.reason, note: req.body.note ?? null }, req.params.alertId)),
  );
  return Promise.resolve();
};
