/**
 * /operator software updates of the lockers' agents (docs/updates.md; services in cloud/src/updates/):
 *   GET  /releases, /releases/:releaseId            signed releases
 *   POST /releases                                  upload one {artifact: base64}
 *   GET  /rollouts, /rollouts/:rolloutId            rollouts with their waves and lockers by state
 *   GET  /rollouts/:rolloutId/lockers               each locker's place and state
 *   POST /rollouts                                  create one
 *   POST /rollouts/:rolloutId/pause|resume|abort    {reason}
 *   POST /rollouts/:rolloutId/rollback              {releaseId, reason, ...} a signed rollback release to its lockers
 *   GET  /agents                                    each locker's agent version; versions across the fleet
 * Viewers read; every change is audited with its reason.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { positiveInt32, requestString } from '../../../contract/common.js';
import { agentPage, versionCounts } from '../../../repositories/locker-agents.js';
import { listRollouts, memberPage, rolloutById } from '../../../repositories/rollouts.js';
import type { ServiceDeps } from '../../../services.js';
import { notFound, releaseDetail, releasePage, uploadRelease } from '../../../updates/releases.js';
import { changeRollout, createRollout, rollBackRollout, rolloutView, type RolloutAction } from '../../../updates/rollouts.js';
import { MAX_WAVES } from '../../../updates/rollout-plan.js';
import { MEMBER_STATES, ROLLOUT_STATES } from '../../../updates/states.js';
import { operatorOf } from '../../plugins/authentication.js';
import { iso, isoTime, operatorErrors, pageOf, paging, reasonSchema, security } from './shared.js';

const version = z.string();
const releaseView = z
  .object({
    id: z.int(),
    version,
    minProtocol: z.int().describe('the lowest link protocol version the agent needs of the cloud'),
    rollbackFrom: z.array(version).describe('newer versions this release may replace (a signed rollback)'),
    keyId: z.string().describe('the signing key'),
    sha256: z.string().describe('of the whole artifact: its name at /updates/artifacts/<sha256>'),
    size: z.int().describe('bytes'),
    files: z.int(),
    notes: z.string().nullable(),
    createdAt: z.string().describe('UTC, ISO 8601'),
    createdBy: z.string(),
  })
  .meta({ id: 'Release' });

const target = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('all').describe('every active locker') }),
    z.object({ kind: z.literal('lockers'), lockerIds: z.array(positiveInt32).min(1).max(100_000).describe('in this order (the first ones form the first wave)') }),
    z.object({ kind: z.literal('city'), city: requestString(128).min(1) }),
  ])
  .meta({ id: 'RolloutTarget' });

const counts = z.record(z.string(), z.int());
const rolloutView_ = z
  .object({
    id: z.int(),
    release: releaseView,
    target,
    waves: z.array(z.number()),
    soakSeconds: z.int(),
    healthWindowSeconds: z.int(),
    maxFailurePercent: z.int(),
    state: z.enum(ROLLOUT_STATES),
    haltReason: z.string().nullable(),
    rollbackOf: z.int().nullable(),
    createdAt: z.string(),
    createdBy: z.string(),
    updatedAt: z.string(),
    wave: z.object({ current: z.int(), of: z.int(), startedAt: z.string(), settledAt: z.string().nullable() }),
    lockers: z.object({ total: z.int(), byState: counts, waves: z.array(z.object({ wave: z.int(), total: z.int(), byState: counts })) }),
  })
  .meta({ id: 'Rollout' });

const memberView = z
  .object({
    lockerId: z.int(),
    name: z.string().nullable(),
    online: z.boolean(),
    wave: z.int().describe('1-based'),
    state: z.enum(MEMBER_STATES),
    reason: z.string().nullable(),
    bytes: z.int().nullable().describe('of the artifact downloaded, while downloading'),
    agentVersion: z.string().nullable().describe('what the agent runs now, by its latest word'),
    offeredAt: isoTime,
    switchedAt: isoTime,
    finishedAt: isoTime,
  })
  .meta({ id: 'RolloutLocker' });

const rolloutParams = z.object({ rolloutId: z.coerce.number().int().pipe(positiveInt32) });
const settings = {
  waves: z
    .array(z.number().positive().max(100))
    .min(1)
    .max(MAX_WAVES)
    .default([1, 10, 50, 100])
    .describe('cumulative percentages of the target, the last 100'),
  soakSeconds: z.int().min(0).max(7 * 86_400).default(1800).describe('after a wave settles, wait this long before the next'),
  healthWindowSeconds: z.int().min(30).max(86_400).default(600).describe('an updated agent confirms itself healthy within this long, or goes back'),
  maxFailurePercent: z.int().min(0).max(100).default(5).describe('the rollout halts when more than this share of a wave failed'),
};

export const updateRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  app.get(
    '/releases',
    {
      schema: { operationId: 'listReleases', tags: ['operator'], summary: 'Signed agent releases, newest first', security, querystring: z.object(paging), response: { 200: pageOf(releaseView), ...operatorErrors } },
    },
    (req) => releasePage(deps, req.query.page, req.query.pageSize),
  );

  app.get(
    '/releases/:releaseId',
    {
      schema: {
        operationId: 'getRelease',
        tags: ['operator'],
        summary: 'One release with its signed manifest (every file with its size and SHA-256)',
        security,
        params: z.object({ releaseId: z.coerce.number().int().pipe(positiveInt32) }),
        response: { 200: releaseView.extend({ manifest: z.unknown() }).meta({ id: 'ReleaseDetail' }), ...operatorErrors, 404: operatorErrors[400].describe('no such release') },
      },
    },
    (req) => releaseDetail(deps, req.params.releaseId),
  );

  app.post(
    '/releases',
    {
      // The artifact in base64 (a third larger): a release of RELEASE_MAX_BYTES fits.
      bodyLimit: Math.ceil((deps.config.releaseMaxBytes * 4) / 3) + 4096,
      schema: {
        operationId: 'uploadRelease',
        tags: ['operator'],
        summary: 'Upload a signed release (`cli.ts release sign`); refused unless a key of RELEASE_PUBLIC_KEYS signed it and every digest holds',
        security,
        body: z
          .object({ artifact: z.string().min(1).max(Math.ceil((deps.config.releaseMaxBytes * 4) / 3) + 4).regex(/^[A-Za-z0-9+/]*={0,2}$/).describe('the artifact file, base64'), reason: reasonSchema.optional() })
          .meta({ id: 'ReleaseUpload' }),
        response: {
          200: releaseView.describe('the same artifact was uploaded before'),
          201: releaseView,
          ...operatorErrors,
        },
      },
    },
    async (req, reply) => {
      const op = operatorOf(req);
      const { release, created } = await uploadRelease(deps, req.body.artifact, { operator: op.id, reason: req.body.reason ?? null });
      return reply.code(created ? 201 : 200).send(release);
    },
  );

  app.get(
    '/rollouts',
    {
      schema: {
        operationId: 'listRollouts',
        tags: ['operator'],
        summary: 'Rollouts, newest first, with their waves and lockers by state',
        security,
        querystring: z.object({ state: z.enum(ROLLOUT_STATES).optional(), ...paging }),
        response: { 200: pageOf(rolloutView_), ...operatorErrors },
      },
    },
    async (req) => {
      const { page, pageSize, state } = req.query;
      const { items, total } = await listRollouts(deps.cdb.db, { state, offset: (page - 1) * pageSize, limit: pageSize });
      return { items: await Promise.all(items.map((r) => rolloutView(deps.cdb.db, r))), total, page, pageSize };
    },
  );

  app.get(
    '/rollouts/:rolloutId',
    { schema: { operationId: 'getRollout', tags: ['operator'], summary: 'One rollout', security, params: rolloutParams, response: { 200: rolloutView_, ...operatorErrors, 404: operatorErrors[400].describe('no such rollout') } } },
    async (req) => {
      const r = await rolloutById(deps.cdb.db, req.params.rolloutId);
      if (!r) throw notFound('rollout', String(req.params.rolloutId));
      return rolloutView(deps.cdb.db, r);
    },
  );

  app.get(
    '/rollouts/:rolloutId/lockers',
    {
      schema: {
        operationId: 'listRolloutLockers',
        tags: ['operator'],
        summary: "A rollout's lockers in their order: wave, state, why, and the version each runs",
        security,
        params: rolloutParams,
        querystring: z.object({ state: z.enum(MEMBER_STATES).optional(), wave: z.coerce.number().int().min(1).max(MAX_WAVES).optional(), ...paging }),
        response: { 200: pageOf(memberView), ...operatorErrors, 404: operatorErrors[400].describe('no such rollout') },
      },
    },
    async (req) => {
      const { page, pageSize, state, wave } = req.query;
      if (!(await rolloutById(deps.cdb.db, req.params.rolloutId))) throw notFound('rollout', String(req.params.rolloutId));
      const { items, total } = await memberPage(deps.cdb.db, req.params.rolloutId, { state, wave: wave === undefined ? undefined : wave - 1, offset: (page - 1) * pageSize, limit: pageSize });
      return {
        items: items.map((m) => ({
          lockerId: m.lockerId,
          name: m.name,
          online: m.online,
          wave: m.wave + 1,
          state: m.state,
          reason: m.reason,
          bytes: m.bytes,
          agentVersion: m.agentVersion,
          offeredAt: iso(m.offeredAt),
          switchedAt: iso(m.switchedAt),
          finishedAt: iso(m.finishedAt),
        })),
        total,
        page,
        pageSize,
      };
    },
  );

  app.post(
    '/rollouts',
    {
      schema: {
        operationId: 'createRollout',
        tags: ['operator'],
        summary: 'Roll a release out to a target (every locker, a list, a city) in waves, with a soak time, a health window and a failure threshold',
        security,
        body: z.object({ releaseId: positiveInt32, target, ...settings, reason: reasonSchema.optional() }).meta({ id: 'RolloutCreate' }),
        response: { 201: rolloutView_, ...operatorErrors, 404: operatorErrors[400].describe('no such release'), 409: operatorErrors[400].describe('a locker of the target is in an unfinished rollout') },
      },
    },
    async (req, reply) => {
      const { reason, ...body } = req.body;
      const view = await createRollout(deps, body, { operator: operatorOf(req).id, reason: reason ?? null });
      return reply.code(201).send(view);
    },
  );

  const action = (name: RolloutAction, summary: string): void => {
    app.post(
      `/rollouts/:rolloutId/${name}`,
      {
        schema: {
          operationId: `${name}Rollout`,
          tags: ['operator'],
          summary,
          security,
          params: rolloutParams,
          body: z.object({ reason: reasonSchema }).meta({ id: 'RolloutActionReason' }),
          response: { 200: rolloutView_, ...operatorErrors, 404: operatorErrors[400].describe('no such rollout'), 409: operatorErrors[400].describe('not in a state that allows it') },
        },
      },
      (req) => changeRollout(deps, req.params.rolloutId, name, { operator: operatorOf(req).id, reason: req.body.reason }),
    );
  };
  action('pause', 'Pause a running rollout: no new offers; lockers that have not switched stop');
  action('resume', 'Resume a paused or halted rollout: failures so far no longer count toward a halt');
  action('abort', 'Abort a rollout for good: lockers that have not switched stop; switched ones finish their health check');

  app.post(
    '/rollouts/:rolloutId/rollback',
    {
      schema: {
        operationId: 'rollbackRollout',
        tags: ['operator'],
        summary: 'Take the lockers a rollout updated back with a signed rollback release (its rollbackFrom names this version); the rollout is aborted',
        security,
        params: rolloutParams,
        body: z.object({ releaseId: positiveInt32, ...settings, waves: settings.waves.default([100]), soakSeconds: settings.soakSeconds.default(0), reason: reasonSchema }).meta({ id: 'RolloutRollback' }),
        response: { 201: rolloutView_, ...operatorErrors, 404: operatorErrors[400].describe('no such rollout or release'), 409: operatorErrors[400].describe('its lockers are in another unfinished rollout') },
      },
    },
    async (req, reply) => {
      const { reason, ...body } = req.body;
      const view = await rollBackRollout(deps, req.params.rolloutId, { ...body, reason }, { operator: operatorOf(req).id, reason });
      return reply.code(201).send(view);
    },
  );

  app.get(
    '/agents',
    {
      schema: {
        operationId: 'listAgents',
        tags: ['operator'],
        summary: "Each active locker's agent version (as its hello, presence or update report said), and how many lockers run each version",
        security,
        querystring: z.object({ version: requestString(64).min(1).optional(), ...paging }),
        response: {
          200: pageOf(
            z.object({ lockerId: z.int(), name: z.string(), online: z.boolean(), version: z.string().nullable(), updates: z.boolean().nullable().describe('it installs releases'), reportedAt: isoTime }),
          )
            .extend({ versions: z.array(z.object({ version: z.string().nullable().describe('null: never said (an older agent)'), lockers: z.int() })) })
            .meta({ id: 'AgentList' }),
          ...operatorErrors,
        },
      },
    },
    async (req) => {
      const { page, pageSize, version: v } = req.query;
      const { items, total } = await agentPage(deps.cdb.db, { version: v, offset: (page - 1) * pageSize, limit: pageSize });
      const versions = (await versionCounts(deps.cdb.db)).map((c) => ({ version: c.version, lockers: c.n })).sort((a, b) => b.lockers - a.lockers);
      return { items: items.map((a) => ({ ...a, reportedAt: iso(a.reportedAt) })), total, page, pageSize, versions };
    },
  );
  return Promise.resolve();
};


