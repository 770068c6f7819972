/**
 * GET /updates/artifacts/:sha256: a release artifact for the lockers' agents (docs/updates.md,
 * "Download"). Not part of the marketplace or operator API (left out of the OpenAPI document):
 * the agent authenticates as its locker (HTTP Basic: locker id and its MQTT password) and gets
 * only the artifact of a rollout it belongs to. Resumable (a single `Range: bytes=N-` or `N-M`,
 * 206 with Content-Range), bounded: one download at a time per locker (429), at most
 * RELEASE_DOWNLOADS_MAX at a time per process (503 with Retry-After), and wrong credentials lock
 * the address out for a while (download-guard.ts). The app-wide request limit does not count
 * these requests (lockers behind one carrier NAT share an address); these bounds replace it.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ResultCode } from '../../../../shared/src/enums.js';
import { mqttPasswordMatches } from '../../broker/mqtt-password.js';
import { DomainError, RetryLaterError, codeError, invalidRequest } from '../../errors.js';
import { mqttPasswordHash } from '../../repositories/lockers.js';
import { releaseArtifact, releaseBySha256 } from '../../repositories/releases.js';
import { mayDownload } from '../../repositories/rollouts.js';
import type { ServiceDeps } from '../../services.js';
import { DownloadGuard } from '../../updates/download-guard.js';

export const UPDATES_PREFIX = '/updates';
/** Artifacts kept in memory (the release of a rollout under way, and one more). */
const CACHED_ARTIFACTS = 2;

function unauthorized(): DomainError {
  return codeError(
    ResultCode.AuthorizationError,
    { ru: 'нужны учётные данные постамата (HTTP Basic: id постамата и его пароль MQTT)', en: 'locker credentials required (HTTP Basic: locker id and its MQTT password)' },
    { status: 401 },
  );
}

function notFound(): DomainError {
  return invalidRequest({ ru: 'для этого постамата нет такого артефакта', en: 'no such artifact for this locker' }, { status: 404 });
}

/** `{lockerId, password}` of an HTTP Basic header, or undefined. */
export function basicCredentials(header: string | undefined): { lockerId: number; password: string } | undefined {
  if (!header || header.length > 1024) return undefined;
  const m = /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(header);
  if (!m) return undefined;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 1) return undefined;
  const id = text.slice(0, colon);
  if (!/^[1-9]\d{0,9}$/.test(id) || Number(id) > 2 ** 31 - 1) return undefined;
  return { lockerId: Number(id), password: text.slice(colon + 1) };
}

/** A single byte range of an artifact of `size` bytes; null: the whole; 'unsatisfiable'. */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  if (header === undefined) return null;
  const m = /^bytes=(\d{1,15})-(\d{0,15})$/.exec(header.trim());
  if (!m) return null; // a form we do not serve (several ranges, suffix): the whole artifact
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

export const updateRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  const guard = new DownloadGuard(deps);
  const inFlight = new Set<number>();
  const cache = new Map<string, Buffer>();

  const artifactOf = async (sha256: string): Promise<Buffer | undefined> => {
    const hit = cache.get(sha256);
    if (hit) {
      cache.delete(sha256);
      cache.set(sha256, hit);
      return hit;
    }
    const row = await releaseArtifact(deps.cdb.db, sha256);
    if (!row) return undefined;
    cache.set(sha256, row.artifact);
    while (cache.size > CACHED_ARTIFACTS) cache.delete(cache.keys().next().value!);
    return row.artifact;
  };

  app.get(
    '/artifacts/:sha256',
    {
      schema: { hide: true, params: z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/) }) },
    },
    async (req, reply) => {
      const lockerId = await guard.guard(req.ip, async () => {
        const creds = basicCredentials(req.headers.authorization);
        if (!creds) throw unauthorized();
        const hash = await mqttPasswordHash(deps.cdb.db, creds.lockerId);
        if (hash === null || !mqttPasswordMatches(creds.password, hash)) throw unauthorized();
        return creds.lockerId;
      });
      const release = await releaseBySha256(deps.cdb.db, req.params.sha256);
      if (!release || !(await mayDownload(deps.cdb.db, lockerId, release.id))) throw notFound();
      if (inFlight.has(lockerId)) throw new DomainError(ResultCode.TooManyRequests, 'this locker is downloading already', { status: 429, retryAfterSeconds: 10 });
      if (inFlight.size >= deps.config.releaseDownloadsMax) throw new RetryLaterError('Слишком много загрузок одновременно: повторите позже', 30, 'too many downloads under way; come back later');
      const artifact = await artifactOf(req.params.sha256);
      if (!artifact) throw notFound();
      const range = byteRange(req.headers.range, artifact.length);
      reply.header('accept-ranges', 'bytes').header('etag', `"${release.sha256}"`).header('cache-control', 'private, max-age=86400, immutable');
      if (range === 'unsatisfiable') {
        throw invalidRequest({ ru: 'диапазон Range вне артефакта', en: 'range not satisfiable' }, { status: 416, extra: { size: artifact.length } });
      }
      inFlight.add(lockerId);
      reply.raw.once('close', () => inFlight.delete(lockerId));
      deps.logger.info({ lockerId, releaseId: release.id, version: release.version, from: range?.start ?? 0 }, 'release download');
      reply.type('application/octet-stream');
      if (!range) return reply.send(artifact);
      return reply
        .code(206)
        .header('content-range', `bytes ${range.start}-${range.end}/${artifact.length}`)
        .send(artifact.subarray(range.start, range.end + 1));
    },
  );
  return Promise.resolve();
};
