/**
 * Authentication of the API's route groups, in one place. Registered once on the app; a route
 * group declares the key kind it needs with `app.requireApiKey(kind)`, which checks the key of
 * every request of that group (before the body: a bad key with a bad body is 401) and records
 * the caller on the request (`req.caller`), for the handlers and the request's log line.
 *
 * Operators may instead present the console's session cookie (operator/sessions.ts); the role
 * and CSRF rules of /operator are here too.
 *
 * The declarations also tell which key kind a path expects (`app.apiKeyKindOf(url)`), so the
 * request limits count a request against the same owner the group would authenticate.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ResultCode } from '../../../../shared/src/enums.js';
import { DomainError } from '../../errors.js';
import { cookieValue, CSRF_HEADER, csrfMatches, SESSION_COOKIE, sessionOf } from '../../operator/sessions.js';
import type { ServiceDeps } from '../../services.js';
import type { Marketplace, Partner } from '../../repositories/accounts.js';
import { type OperatorRole, type OperatorSession, operatorRole } from '../../repositories/operators.js';
import { API_KEY_HEADERS, authenticateMarketplace, authenticateOperator, authenticatePartner, keyInWrongHeader, type KeyOwnerKind, otherKeyHeader } from '../auth.js';

/** Who is calling, once the key of the route group's kind was accepted. */
export type AuthenticatedCaller =
  | { kind: 'marketplace'; id: string; marketplace: Marketplace }
  | { kind: 'partner'; id: string; partner: Partner }
  | { kind: 'operator'; id: string; role: OperatorRole; session: OperatorSession | null };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route needs no key (operator sign-in). */
    anonymous?: boolean;
    /** A changing operator route a viewer may call too (signing out). */
    anyRole?: boolean;
  }
  interface FastifyRequest {
    /** Set by the route group's authentication; null before it or outside the route groups. */
    caller: AuthenticatedCaller | null;
  }
  interface FastifyInstance {
    /** Every request of this route group (this instance and its children) needs a key of `kind`. */
    requireApiKey(kind: KeyOwnerKind): void;
    /** The key kind the route group of `url` needs, if any (by the groups' prefixes). */
    apiKeyKindOf(url: string): KeyOwnerKind | undefined;
  }
}

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

function forbidden(message: string): DomainError {
  return new DomainError(ResultCode.Forbidden, message);
}

/**
 * An operator: by X-Operator-Api-Key, else by the console's session cookie. With the cookie, a
 * request that changes something must carry the session's CSRF token; a viewer may only read
 * (and sign out). Both refusals are 403 with code 5.
 */
async function authenticateOperatorRequest(deps: AuthDeps, req: FastifyRequest): Promise<AuthenticatedCaller> {
  const header = req.headers[API_KEY_HEADERS.operator];
  let caller: Extract<AuthenticatedCaller, { kind: 'operator' }>;
  if (header !== undefined) {
    const id = await authenticateOperator(deps.cdb, header);
    caller = { kind: 'operator', id, role: await operatorRole(deps.cdb.db, id), session: null };
  } else {
    const session = await sessionOf(deps, cookieValue(req.headers.cookie, SESSION_COOKIE));
    caller = { kind: 'operator', id: session.operator, role: session.role, session };
  }
  if (SAFE_METHODS.has(req.method)) return caller;
  if (caller.session && !csrfMatches(caller.session, req.headers[CSRF_HEADER])) {
    throw forbidden('CSRF token missing or wrong: send the X-CSRF-Token the session answered');
  }
  if (caller.role === 'viewer' && !req.routeOptions.config.anyRole) throw forbidden(`operator ${caller.id} is a viewer: reading only`);
  return caller;
}

async function authenticate(deps: AuthDeps, kind: KeyOwnerKind, req: FastifyRequest): Promise<AuthenticatedCaller> {
  const { cdb } = deps;
  const header = req.headers[API_KEY_HEADERS[kind]];
  if (header === undefined && !(kind === 'operator' && req.headers.cookie !== undefined)) {
    const sent = otherKeyHeader(kind, req.headers);
    if (sent) throw keyInWrongHeader(kind, sent);
  }
  switch (kind) {
    case 'marketplace': {
      const marketplace = await authenticateMarketplace(cdb, header);
      return { kind, id: marketplace.id, marketplace };
    }
    case 'partner': {
      const partner = await authenticatePartner(cdb, header);
      return { kind, id: partner.id, partner };
    }
    case 'operator':
      return authenticateOperatorRequest(deps, req);
  }
}

type AuthDeps = Pick<ServiceDeps, 'cdb' | 'clock' | 'config'>;

const plugin: FastifyPluginAsync<{ deps: AuthDeps }> = (app, { deps }) => {
  /** `<group prefix>/` -> key kind, filled as the route groups declare themselves. */
  const groups: { prefix: string; kind: KeyOwnerKind }[] = [];

  app.decorateRequest('caller', null);
  app.decorate('requireApiKey', function requireApiKey(this: FastifyInstance, kind: KeyOwnerKind): void {
    const prefix = `${this.prefix}/`;
    if (!groups.some((g) => g.prefix === prefix)) groups.push({ prefix, kind });
    this.addHook('onRequest', async (req) => {
      if (req.routeOptions.config.anonymous) return;
      req.caller = await authenticate(deps, kind, req);
    });
  });
  app.decorate('apiKeyKindOf', (url: string): KeyOwnerKind | undefined => groups.find((g) => url.startsWith(g.prefix))?.kind);
  return Promise.resolve();
};

/** Registered once on the app, before the request limits and the route groups. */
export const authentication = fp(plugin, { name: 'authentication' });

function programmingError(kind: KeyOwnerKind): Error {
  return new Error(`the route group does not require a ${kind} key`);
}

/** The calling marketplace, in a route group that requires marketplace keys. */
export function marketplaceOf(req: FastifyRequest): Marketplace {
  if (req.caller?.kind !== 'marketplace') throw programmingError('marketplace');
  return req.caller.marketplace;
}

/** The calling operator (name, role, session), in the /operator route group. */
export function operatorOf(req: FastifyRequest): Extract<AuthenticatedCaller, { kind: 'operator' }> {
  if (req.caller?.kind !== 'operator') throw programmingError('operator');
  return req.caller;
}

/** The calling partner, in a route group that requires partner keys. */
export function partnerOf(req: FastifyRequest): Partner {
  if (req.caller?.kind !== 'partner') throw programmingError('partner');
  return req.caller.partner;
}
