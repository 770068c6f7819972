/**
 * Idempotency-Key on the mutating operations (idempotency/idempotency-key.ts has the rules), as
 * route hooks, and the request scope handed to the services:
 * - preHandler (after authentication and validation, so refused requests claim nothing): no
 *   header, nothing happens (no database round trip); else the key is claimed, or the first answer
 *   is replayed with `Idempotent-Replayed: true`, or 422/409 answer.
 * - the service stores its answer inside its own transaction (`scopedDeps`);
 * - onSend: any other answer of a claimed request is stored here (refusals such as 205 or 32, a
 *   replay of the order's own externalId); an unexpected failure (5xx) releases the key, so a
 *   retry runs again (its transaction rolled back: nothing happened).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { claimKey, answerInTransaction, type KeyClaim, parseIdempotencyKey } from '../idempotency/idempotency-key.js';
import { requestHash } from '../orders/request-hash.js';
import { releaseClaim, storeAnswer } from '../repositories/idempotency.js';
import type { RequestScope } from '../request-scope.js';
import type { ServiceDeps } from '../services.js';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

interface ClaimState {
  claim: KeyClaim;
  /** The service stored a 200 answer in its transaction (it committed if the answer is 200). */
  answeredInTransaction: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request holds; null without one. */
    idempotency: ClaimState | null;
  }
}

/**
 * The services' dependencies for this request: its id, the hook that stores an idempotent answer,
 * and (`call`) the record of the call on the order it creates.
 */
export function scopedDeps(deps: ServiceDeps, req: FastifyRequest, call?: RequestScope['call']): ServiceDeps {
  const state = req.idempotency;
  const request: RequestScope = { requestId: req.id, ...(call ? { call } : {}) };
  if (state) {
    request.answered = async (tx, answer) => {
      await answerInTransaction(tx, state.claim, answer);
      state.answeredInTransaction = true;
    };
  }
  return { ...deps, request };
}

/** The hooks of an idempotent route. */
export function idempotentRoute(deps: ServiceDeps) {
  const preHandler = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const header = req.headers[IDEMPOTENCY_KEY_HEADER];
    if (header === undefined) return undefined;
    const key = parseIdempotencyKey(header);
    if (!req.caller) throw new Error('an idempotent route must authenticate its caller');
    const ref = { caller: `${req.caller.kind}:${req.caller.id}`, key };
    const outcome = await claimKey(deps, ref, requestHash(`${req.method} ${req.routeOptions.url}`, req.body));
    if (outcome.kind === 'claimed') {
      req.idempotency = { claim: outcome.claim, answeredInTransaction: false };
      return undefined;
    }
    req.log.info({ status: outcome.status }, 'idempotent replay');
    // Through the route's serializer, as the first answer went: the same bytes again.
    void reply
      .code(outcome.status)
      .header(REPLAYED_HEADER, 'true')
      .send(JSON.parse(outcome.body) as unknown);
    return reply; // answered: the handler does not run
  };

  const onSend = async (req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const state = req.idempotency;
    if (!state) return payload;
    const status = reply.statusCode;
    if (status === 200 && state.answeredInTransaction) return payload;
    try {
      if (status >= 500) await releaseClaim(deps.cdb.db, state.claim, state.claim.token);
      else if (typeof payload === 'string') await storeAnswer(deps.cdb.db, state.claim, state.claim.token, { status, body: payload });
    } catch (err) {
      // The answer still goes out; the key stays in flight until its lease ends, then a retry takes it over.
      req.log.error({ err }, 'storing the answer of an Idempotency-Key failed');
    }
    return payload;
  };

  return { preHandler, onSend };
}
