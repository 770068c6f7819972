/** /operator/audit: what operators did, newest first, filtered by operator, locker, order, action and time. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { positiveInt32, requestString } from '../../../contract/common.js';
import { AUDIT_ACTIONS } from '../../../operator/audit.js';
import { auditPage } from '../../../repositories/operators.js';
import type { ServiceDeps } from '../../../services.js';
import { iso, isoTime, operatorErrors, pageOf, paging, security } from './shared.js';

const auditItem = z
  .object({
    id: z.int(),
    at: isoTime,
    operator: z.string(),
    action: z.enum(AUDIT_ACTIONS),
    target: z.string().describe('locker:<id>/cell:<id>, alert:<id>, order:<id>, notifications, release:<id> or rollout:<id>'),
    reason: z.string().nullable().describe("the action's reason: its fixed purpose where it has one (cell open), else the operator's words"),
    note: z.string().nullable().describe("the operator's free-text note beside the reason"),
    lockerId: z.int().nullable().describe('the locker the action concerned, if one'),
    orderId: z.string().nullable().describe('the order the action concerned, if one'),
    detail: z.unknown(),
  })
  .meta({
    example: {
      id: 12,
      at: '2030-03-04T09:00:00.000Z',
      operator: 'duty-desk',
      action: 'cell.open',
      target: 'locker:101/cell:3',
      reason: 'customer_support',
      note: 'customer at the locker, code not accepted',
      lockerId: 101,
      orderId: null,
      detail: { cseq: 41, openReason: 'customer_support', notAfter: '2030-03-04T09:05:00.000Z' },
    },
  });

const moment = z.iso.datetime({ offset: true }).max(40);

export const auditRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  app.get(
    '/audit',
    {
      schema: {
        operationId: 'listAudit',
        tags: ['operator'],
        summary: 'The audit log of operator actions (who, when, what, target, why), newest first; each filter given narrows it',
        security,
        querystring: z.object({
          operator: requestString(64).min(1).optional(),
          target: requestString(128).min(1).optional().describe('e.g. locker:101/cell:3, alert:17, order:<id>'),
          lockerId: z.coerce.number().int().pipe(positiveInt32).optional().describe("the locker's actions: its cells, its alerts, its orders' extensions"),
          orderId: requestString(64).min(1).optional(),
          action: z.enum(AUDIT_ACTIONS).optional(),
          from: moment.optional().describe('ISO 8601 with an offset; entries at or after it'),
          to: moment.optional().describe('ISO 8601 with an offset; entries before it'),
          ...paging,
        }),
        response: { 200: pageOf(auditItem), ...operatorErrors },
      },
    },
    async (req) => {
      const { page, pageSize, from, to, ...filter } = req.query;
      const { items, total } = await auditPage(deps.cdb.db, {
        ...filter,
        from: from === undefined ? undefined : Date.parse(from),
        to: to === undefined ? undefined : Date.parse(to),
        offset: (page - 1) * pageSize,
        limit: pageSize,
      });
      return { items: items.map((e) => ({ ...e, action: e.action as (typeof AUDIT_ACTIONS)[number], at: iso(e.at) })), total, page, pageSize };
    },
  );
  return Promise.resolve();
};
