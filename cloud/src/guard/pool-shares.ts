/**
 * Tags each API request's database work with its caller, so that the PostgreSQL pool is shared
 * out per caller (db/fair-checkout.ts, db/pool-callers.ts): the authenticated caller once known
 * (`marketplace:<id>`, `partner:<id>`, `operator:<name>`, a console session's operator too), before
 * that the caller the request limit counts (guard/callers.ts: the key's owner or `ip:<address>`).
 *
 * A request may be refused (429) at a checkout (its caller's queue full) only while nothing it does
 * has written: until its first connection (key lookups), and again from the pre-handler phase (its
 * operation) until the first connection there; after that its checkouts wait their turn, so a
 * refusal never leaves an operation half done.
 */
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type PoolCaller, runInPoolScope } from '../db/pool-callers.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Whose share of the database pool the request's work takes. */
    poolScope: PoolCaller | null;
  }
}

function scopeOf(req: FastifyRequest): PoolCaller {
  const address = `ip:${normalizeIP(req.ip)}`;
  return {
    get caller() {
      const c = req.caller;
      return c ? `${c.kind}:${c.id}` : (req.limitedCaller?.bucket ?? address);
    },
    refusable: true,
    held: 0,
    waiting: 0,
  };
}

const plugin: FastifyPluginCallback = (app, _opts, done) => {
  app.decorateRequest('poolScope', null);
  // Callback hooks: what runs after `next` (the other hooks, the body, the handler) runs in the scope.
  app.addHook('onRequest', (req, _reply, next) => {
    const scope = (req.poolScope = scopeOf(req));
    runInPoolScope(scope, next);
  });
  // Again once the body is read: its parsing ran in the socket's context, not the request's.
  app.addHook('preHandler', (req, _reply, next) => {
    const scope = req.poolScope!;
    scope.refusable = true;
    runInPoolScope(scope, next);
  });
  done();
};

/** Registered on the app before the request limits and the route groups (fastify-plugin: its hooks cover them all). */
export const poolShares = fp(plugin, { name: 'pool-shares' });
