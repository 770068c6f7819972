/** /operator locker health: the latest health report of a locker's agent (lockers/locker-health.ts). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { healthReportSchema } from '../../../../../shared/src/protocol.js';
import { errorResponses, positiveInt32 } from '../../../contract/common.js';
import type { CloudDatabase } from '../../../db/database.js';
import { lockerHealth } from '../../../lockers/locker-health.js';
import { iso, isoTime, security } from './shared.js';

export const healthRoutes: FastifyPluginAsyncZod<{ deps: { cdb: CloudDatabase } }> = (app, { deps }) => {
  app.get(
    '/lockers/:lockerId/health',
    {
      schema: {
        operationId: 'getLockerHealth',
        tags: ['operator'],
        summary: "The latest health report of the locker's agent (null until it sends one; docs/mqtt-interface.md)",
        security,
        params: z.object({ lockerId: z.coerce.number().int().pipe(positiveInt32) }),
        response: {
          200: z.object({ lockerId: z.int(), receivedAt: isoTime, reportedAt: isoTime, report: healthReportSchema.nullable() }).meta({ id: 'LockerHealth' }),
          ...errorResponses,
        },
      },
    },
    async (req) => {
      const stored = await lockerHealth(deps.cdb.db, req.params.lockerId);
      return {
        lockerId: req.params.lockerId,
        receivedAt: iso(stored?.receivedAt ?? null),
        reportedAt: iso(stored?.report.at ?? null),
        report: stored?.report ?? null,
      };
    },
  );
  return Promise.resolve();
};
