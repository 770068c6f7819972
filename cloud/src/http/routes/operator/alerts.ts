/** /operator alerts: the locker facts kept for operators (locker-events/alerts.ts), newest first. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, positiveInt32 } from '../../../contract/common.js';
import type { CloudDatabase } from '../../../db/database.js';
import { listAlerts } from '../../../locker-events/alerts.js';
import { iso, isoTime, limit, rowId, security } from './shared.js';

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
}).meta({ id: 'Alert' });

export const alertRoutes: FastifyPluginAsyncZod<{ deps: { cdb: CloudDatabase } }> = (app, { deps }) => {
  app.get(
    '/alerts',
    {
      schema: {
        operationId: 'listAlerts',
        tags: ['operator'],
        summary: "Locker facts kept for operators (alarms, keypad, cell flags, facts that met a changed intent), newest first",
        security,
        querystring: z.object({
          postamatId: z.coerce.number().pipe(positiveInt32).optional(),
          severity: z.enum(['info', 'warning']).optional(),
          beforeId: rowId.optional(),
          limit,
        }),
        response: { 200: z.object({ alerts: z.array(alertView) }).meta({ id: 'AlertList' }), ...errorResponses },
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
