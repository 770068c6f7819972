/**
 * The request limit of the whole HTTP API, with @fastify/rate-limit doing the mechanics (headers,
 * 429) on counters in the database (window-counters.ts), so several cloud processes share them.
 *
 * It runs as the first onRequest hook of the app that reads the database (after guard/pool-shares.ts
 * tags the request), before authentication, so requests with a wrong
 * key are counted too (per client address). Beyond the limit: HTTP 429 with the envelope
 * `{message, resultCode: 4}`, `Retry-After`, and on every answer `RateLimit-Limit`,
 * `RateLimit-Remaining`, `RateLimit-Reset` (IETF draft names). `/health`, `/health/ready` and `/metrics` are not
 * counted: probes and scrapes must never be refused (nor wait for the database's counters).
 */
import fastifyRateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { RetryLaterError } from '../errors.js';
import type { ServiceDeps } from '../services.js';
import { type Caller, CallerResolver } from './callers.js';
import { WindowCounters } from './window-counters.js';

export const TOO_MANY_REQUESTS_MESSAGE = 'Слишком много запросов';

const UNCOUNTED = new Set(['/health', '/health/ready', '/metrics']);
/** Lockers' artifact downloads have bounds of their own (http/routes/updates.ts): per locker, not per shared address. */
const UNCOUNTED_PREFIX = '/updates/artifacts/';

/** A store class for @fastify/rate-limit over the shared counters (it instantiates the class itself). */
function databaseStore(counters: WindowCounters, onFirstExceeded: (key: string) => void): FastifyRateLimitStoreCtor {
  return class DatabaseRateStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number, max: number): void {
      counters.hit([{ key, windowMs: timeWindow, max }]).then(
        ([count]) => {
          if (count!.hits === max + 1) onFirstExceeded(key);
          callback(null, { current: count!.hits, ttl: count!.ttlMs });
        },
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Whom the request counts against, set when it is counted. */
    limitedCaller: Caller | null;
  }
}

const plugin: FastifyPluginAsync<{ deps: ServiceDeps }> = async (app, { deps }) => {
  const resolver = new CallerResolver(deps.cdb, deps.clock);
  const counters = new WindowCounters(deps.cdb, deps.clock);
  // Hits counted in the process reach the shared table before the process lets go of it.
  app.addHook('onClose', () => counters.flush());
  const callerOf = (req: FastifyRequest): Caller => req.limitedCaller!;
  app.decorateRequest('limitedCaller', null);

  await app.register(fastifyRateLimit, {
    global: false,
    enableDraftSpec: true,
    store: databaseStore(counters, (bucket) => deps.logger.warn({ bucket }, 'request limit reached')),
    keyGenerator: async (req) => {
      // The key kind the path's route group authenticates (http/plugins/authentication.ts).
      const caller = await resolver.callerOf(req, app.apiKeyKindOf(req.url));
      req.limitedCaller = caller;
      return `req:${caller.bucket}`;
    },
    max: (req) => callerOf(req).limit.max,
    timeWindow: (req) => callerOf(req).limit.windowSeconds * 1000,
    errorResponseBuilder: (req, ctx) => {
      const seconds = Math.max(1, Math.ceil(ctx.ttl / 1000));
      const { max, windowSeconds } = callerOf(req).limit;
      deps.metrics.guard.refused('request_limit');
      return new RetryLaterError(
        `${TOO_MANY_REQUESTS_MESSAGE}: не более ${max} за ${windowSeconds} с, повторите через ${seconds} с`,
        seconds,
        `Too many requests: at most ${max} per ${windowSeconds} s, retry in ${seconds} s`,
      );
    },
  });
  const limit = app.rateLimit();
  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0]!;
    if (UNCOUNTED.has(path) || path.startsWith(UNCOUNTED_PREFIX)) return;
    await limit.call(app, req, reply);
  });
};

/** Registered once on the app, before the route groups (fastify-plugin: its hook covers them all). */
export const requestLimits = fp(plugin, { name: 'request-limits', dependencies: ['authentication'] });
