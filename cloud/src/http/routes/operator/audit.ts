/** /operator/audit: what operators did, newest first. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requestString } from '../../../contract/common.js';
import { AUDIT_ACTIONS } from '../../../operator/audit.js';
import { auditPage } from '../../../repositories/operators.js';
import type { ServiceDeps } from '../../../services.js';
import { iso, isoTime, operatorErrors, pageOf, paging, security } from './shared.js';

const auditItem = z
  .object({ id: z.int(), at: isoTime, operator: z.string(), action: z.enum(AUDIT_ACTIONS), target: z.string(), reason: z.string().nullable(), detail: z.unknown() })
  .meta({
    example: { id: 12, at: '2030-03-04T09:00:00.000Z', operator: 'duty-desk', action: 'cell.flags', target: 'locker:101/cell:3', reason: 'door hinge broken', detail: { before: [], after: ['blocked'] } },
  });

export const auditRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  app.get(
    '/audit',
    {
      schema: {
        operationId: 'listAudit',
        tags: ['operator'],
        summary: 'The audit log of operator actions (who, when, what, target, why), newest first',
        security,
        querystring: z.object({
          operator: requestString(64).min(1).optional(),
          target: requestString(128).min(1).optional().describe('e.g. locker:101/cell:3, alert:17, order:<id>'),
          ...paging,
        }),
        response: { 200: pageOf(auditItem), ...operatorErrors },
      },
    },
    async (req) => {
      const { page, pageSize, operator, target } = req.query;
      const { items, total } = await auditPage(deps.cdb.db, { operator, target, offset: (page - 1) * pageSize, limit: pageSize });
      return { items: items.map((e) => ({ ...e, action: e.action as (typeof AUDIT_ACTIONS)[number], at: iso(e.at) })), total, page, pageSize };
    },
  );
  return Promise.resolve();
};
