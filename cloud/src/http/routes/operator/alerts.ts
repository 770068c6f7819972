/**
 * /operator alerts (locker-events/alerts.ts): alerts newest first (routine facts on request, as
 * history), acknowledge, resolve, assign, notes.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { positiveInt32, requestString } from '../../../contract/common.js';
import { type Alert, listAlerts } from '../../../locker-events/alerts.js';
import { acknowledge, addNote, assign, resolve } from '../../../operator/alert-actions.js';
import { ALERT_SEVERITIES, ALERT_STATUSES, type AlertNote, alertNotes } from '../../../repositories/alerts.js';
import type { Tx } from '../../../db/transaction.js';
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
    assignee: z.string().nullable().describe('the operator who is on it; null: nobody yet'),
    notes: z.array(z.object({ at: z.string(), operator: z.string(), text: z.string() })).describe("operators' notes, oldest first"),
  })
  .meta({
    id: 'Alert',
    example: {
      id: 17, postamatId: 101, dseq: 5, kind: 'door.alarm', severity: 'warning', cellId: 3, orderId: null, detail: { kind: 'left_open' },
      occurredAt: '2030-03-04T09:00:00.000Z', receivedAt: '2030-03-04T09:00:01.000Z', status: 'open', dedupKey: 'door.alarm:101:3', count: 4,
      lastSeenAt: '2030-03-04T09:12:00.000Z', acknowledgedAt: null, acknowledgedBy: null, resolvedAt: null, resolvedBy: null, resolveReason: null,
      assignee: 'duty-desk', notes: [{ at: '2030-03-04T09:05:00.000Z', operator: 'duty-desk', text: 'technician on the way' }],
    },
  });

/** The alerts as answered, each with its notes (one query for all of them). */
export async function presentAlerts(db: Tx, alerts: readonly Alert[]): Promise<z.infer<typeof alertView>[]> {
  const notes = await alertNotes(db, alerts.map((a) => a.id));
  return alerts.map((a) => presentAlert(a, notes.get(a.id) ?? []));
}

function presentAlert(a: Alert, notes: readonly AlertNote[]): z.infer<typeof alertView> {
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
    assignee: a.assignee,
    notes: notes.map((n) => ({ at: iso(n.at)!, operator: n.operator, text: n.text })),
  };
}

const presentOne = async (db: Tx, a: Alert) => (await presentAlerts(db, [a]))[0]!;

const alertParams = z.object({ alertId: z.coerce.number().int().pipe(positiveInt32) });

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
          postamatId: z.coerce.number().int().pipe(positiveInt32).optional(),
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
      return { alerts: await presentAlerts(deps.cdb.db, rows) };
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
    async (req) => presentOne(deps.cdb.db, await acknowledge(deps, { operator: operatorOf(req).id, reason: req.body.reason ?? null, note: req.body.note ?? null }, req.params.alertId)),
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
    async (req) => presentOne(deps.cdb.db, await resolve(deps, { operator: operatorOf(req).id, reason: req.body.reason, note: req.body.note ?? null }, req.params.alertId)),
  );

  app.post(
    '/alerts/:alertId/assign',
    {
      schema: {
        operationId: 'assignAlert',
        tags: ['operator'],
        summary: 'Assign an open or acknowledged alert to an operator (null: to nobody)',
        security,
        params: alertParams,
        body: z.object({ assignee: requestString(64).min(1).nullable(), reason: reasonSchema.optional(), note: noteSchema }).meta({ example: { assignee: 'field-tech-3', note: 'on site by noon' } }),
        response: { 200: alertView, ...operatorErrors },
      },
    },
    async (req) =>
      presentOne(deps.cdb.db, await assign(deps, { operator: operatorOf(req).id, reason: req.body.reason ?? null, note: req.body.note ?? null }, req.params.alertId, req.body.assignee)),
  );

  app.post(
    '/alerts/:alertId/notes',
    {
      schema: {
        operationId: 'addAlertNote',
        tags: ['operator'],
        summary: "Add an operator's note to an alert (kept with it, and in the audit log)",
        security,
        params: alertParams,
        body: z.object({ text: reasonSchema }).meta({ example: { text: 'customer called: door would not close' } }),
        response: { 200: alertView, ...operatorErrors },
      },
    },
    async (req) => presentOne(deps.cdb.db, await addNote(deps, { operator: operatorOf(req).id, reason: null }, req.params.alertId, req.body.text)),
  );
  return Promise.resolve();
};
