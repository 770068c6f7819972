/** /operator cells: the flagged cells of the fleet, cell flags, and opening a cell remotely (with a maximum age). */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CELL_FLAGS, CellFlag } from '../../../../../shared/src/enums.js';
import { CELL_OPEN_REASONS } from '../../../../../shared/src/protocol.js';
import { positiveInt32 } from '../../../contract/common.js';
import { CELL_OPEN_DEFAULT_MAX_AGE_SECONDS, CELL_OPEN_MAX_AGE_SECONDS, requestCellOpen } from '../../../operator/cell-open.js';
import { setCellFlags } from '../../../operator/cell-flags.js';
import { CELL_FLAG_FILTERS, flaggedCells } from '../../../operator/fleet-views.js';
import type { ServiceDeps } from '../../../services.js';
import { operatorOf } from '../../plugins/authentication.js';
import { noteSchema, operatorErrors, pageOf, paging, reasonSchema, security } from './shared.js';

const flagChanges = z
  .object({
    [CellFlag.Faulty]: z.boolean().optional(),
    [CellFlag.Dirty]: z.boolean().optional(),
    [CellFlag.NeedsInventory]: z.boolean().optional(),
    [CellFlag.Blocked]: z.boolean().optional(),
    reason: reasonSchema.optional().describe('why (kept in the audit log)'),
    note: noteSchema,
  })
  .describe('true sets a flag, false clears it, absent leaves it; clearing faulty, dirty and needs_inventory marks an inspection done')
  .meta({ id: 'CellFlagChanges', example: { blocked: true, reason: 'door hinge broken' } });

const flaggedCell = z
  .object({
    lockerId: z.int(),
    lockerName: z.string(),
    cellId: z.int(),
    size: z.string().describe('`<width>x<height>`, mm'),
    flags: z.array(z.enum(CELL_FLAGS)).describe("all the cell's flags"),
    flagMarks: z
      .array(
        z.object({
          flag: z.enum(CELL_FLAGS),
          setBy: z.string().describe('the operator who set it, or `locker` when the locker raised it'),
          reason: z.string().nullable(),
          note: z.string().nullable(),
          setAt: z.string().describe('UTC, ISO 8601'),
        }),
      )
      .describe('who set each current flag, why and when; a flag set by the fleet file has no mark'),
  })
  .meta({
    id: 'FlaggedCell',
    example: { lockerId: 101, lockerName: 'Постамат Тверская 7', cellId: 4, size: '400x400', flags: ['blocked'], flagMarks: [{ flag: 'blocked', setBy: 'ops', reason: 'door hinge broken', note: null, setAt: '2030-03-04T08:10:00.000Z' }] },
  });

export const cellRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  app.get(
    '/cells',
    {
      schema: {
        operationId: 'listFlaggedCells',
        tags: ['operator'],
        summary: 'Cells of active lockers with a flag, by locker then cell, a page at a time, with who set it, why and when',
        security,
        querystring: z.object({
          flag: z.enum(CELL_FLAG_FILTERS).describe('one flag, or needs_inspection: faulty, dirty or needs_inventory (as the overview counts)'),
          sandbox: z.enum(['true', 'false']).default('false').describe("true: the sandbox's lockers (apart, as in the overview)"),
          ...paging,
        }),
        response: { 200: pageOf(flaggedCell), ...operatorErrors },
      },
    },
    async (req) => flaggedCells(deps, { ...req.query, sandbox: req.query.sandbox === 'true' }),
  );

  app.put(
    '/postamats/:postamatId/cells/:cellId/flags',
    {
      schema: {
        operationId: 'setCellFlags',
        tags: ['operator'],
        summary: 'Set or clear cell flags (faulty, dirty, needs_inventory, blocked)',
        security,
        params: z.object({ postamatId: z.coerce.number().int().pipe(positiveInt32), cellId: z.coerce.number().int().pipe(positiveInt32) }),
        body: flagChanges,
        response: {
          200: z.object({ postamatId: z.int(), cellId: z.int(), flags: z.array(z.enum(CELL_FLAGS)) }).meta({ id: 'CellFlags' }),
          ...operatorErrors,
        },
      },
    },
    async (req) => {
      const { reason, note, ...changes } = req.body;
      return setCellFlags(deps, req.params.postamatId, req.params.cellId, changes, { operator: operatorOf(req).id, reason: reason ?? null, note: note ?? null });
    },
  );

  app.post(
    '/lockers/:lockerId/cells/:cellId/open',
    {
      schema: {
        operationId: 'openCell',
        tags: ['operator'],
        summary: 'Open a cell door remotely; the locker refuses it once older than maxAgeSeconds by its own clock',
        description:
          'Records a `cell.open` command for the locker with notAfter = now + maxAgeSeconds. The locker opens the door if the command ' +
          'reaches it in time and reports the outcome as a `cell.open` event (operator alerts): opened, jammed, unknown, stale, ' +
          'clock_skew, unknown_cell, busy or failed.',
        security,
        params: z.object({ lockerId: z.coerce.number().int().pipe(positiveInt32), cellId: z.coerce.number().int().pipe(positiveInt32) }),
        body: z
          .object({
            reason: z.enum(CELL_OPEN_REASONS).describe('the purpose (kept in the audit log as the reason)'),
            note: noteSchema,
            maxAgeSeconds: z.int().min(1).max(CELL_OPEN_MAX_AGE_SECONDS).default(CELL_OPEN_DEFAULT_MAX_AGE_SECONDS),
          })
          .meta({ id: 'CellOpen', example: { reason: 'customer_support', note: 'customer at the locker, code not accepted', maxAgeSeconds: 120 } }),
        response: {
          202: z
            .object({ lockerId: z.int(), cellId: z.int(), cseq: z.int(), notAfter: z.int().describe('epoch ms; the locker refuses the command after it') })
            .meta({ id: 'CellOpenAccepted' }),
          ...operatorErrors,
        },
      },
    },
    async (req, reply) => {
      const actor = { operator: operatorOf(req).id, reason: req.body.reason, note: req.body.note ?? null };
      const answer = await requestCellOpen(deps, req.params.lockerId, req.params.cellId, req.body, actor);
      return reply.code(202).send(answer);
    },
  );
  return Promise.resolve();
};
