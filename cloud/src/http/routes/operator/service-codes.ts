/** /operator service codes: a technician's code for one locker's service menu (operator/service-codes.ts). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { positiveInt32 } from '../../../contract/common.js';
import { SERVICE_CODE_DEFAULT_MINUTES, SERVICE_CODE_LENGTH, SERVICE_CODE_MAX_MINUTES, issueServiceCode } from '../../../operator/service-codes.js';
import type { ServiceDeps } from '../../../services.js';
import { operatorOf } from '../../plugins/authentication.js';
import { noteSchema, operatorErrors, reasonSchema, security } from './shared.js';

export const serviceCodeRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  app.post(
    '/lockers/:lockerId/service-codes',
    {
      schema: {
        operationId: 'issueServiceCode',
        tags: ['operator'],
        summary: "Issue a technician's service code for one locker's screen; the answer is the only place the code is shown",
        description:
          `Draws a ${SERVICE_CODE_LENGTH}-digit code valid for \`minutes\` and sends the locker only its hash and end (a \`service.code\` command). ` +
          'Typed at the locker\'s screen behind "Service", it opens the service menu: the flagged cells (needs_inventory first, then faulty), ' +
          'each to open and record as empty or holding a parcel (a `cell.inventoried` event). The cloud keeps no copy of the code; the audit ' +
          'log keeps its id and end. Refused while the locker\'s agent has not announced service.code.',
        security,
        params: z.object({ lockerId: z.coerce.number().int().pipe(positiveInt32) }),
        body: z
          .object({
            minutes: z.int().min(5).max(SERVICE_CODE_MAX_MINUTES).default(SERVICE_CODE_DEFAULT_MINUTES).describe('how long the code opens the service menu'),
            reason: reasonSchema.optional().describe('why (kept in the audit log)'),
            note: noteSchema,
          })
          .meta({ id: 'ServiceCodeRequest', example: { minutes: 60, reason: 'inventory after a power cut' } }),
        response: {
          201: z
            .object({
              lockerId: z.int(),
              codeId: z.string().describe('names the code in the audit log and in the locker\'s events'),
              code: z.string().describe('the code to type at the screen: shown here once, kept nowhere'),
              validUntil: z.int().describe('epoch ms; the locker refuses the code from then on'),
              cseq: z.int(),
            })
            .meta({ id: 'ServiceCode', example: { lockerId: 1001, codeId: '0190f7a2-7c4e-7b1a-9d3e-5f2a1b0c9d8e', code: '40917352', validUntil: 1898845200000, cseq: 7 } }),
          ...operatorErrors,
        },
      },
    },
    async (req, reply) => {
      const actor = { operator: operatorOf(req).id, reason: req.body.reason ?? null, note: req.body.note ?? null };
      const answer = await issueServiceCode(deps, req.params.lockerId, req.body.minutes, actor);
      // The answer carries a secret: no cache keeps it.
      return reply.code(201).header('Cache-Control', 'no-store').send(answer);
    },
  );
  return Promise.resolve();
};
