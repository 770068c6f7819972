/**
 * Authentication of the API's route groups, in one place. Registered once on the app; a route
 * group declares the key kind it needs with `app.requireApiKey(kind)`, which checks the key of
 * every request of that group (before the body: a bad key with a bad body is 401) and records
 * the caller on the request (`req.caller`), for the handlers and the request's log line.
 *
 * The declarations also tell which key kind a path expects (`app.apiKeyKindOf(url)`), so the
 * request limits count a request against the same owner the group would authenticate.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { CloudDatabase } from '../../db/database.js';
import type { ServiceDeps } from '../../services.js';
import type { Marketplace, Partner } from '../../repositories/accounts.js';
import { API_KEY_HEADERS, authenticateMarketplace, authenticateOperator, authenticatePartner, type KeyOwnerKind } from '../auth.js';

/** Who is calling, once the key of the route group's kind was accepted. */
export type AuthenticatedCaller =
  | { kind: 'marketplace'; id: string; marketplace: Marketplace }
  | { kind: 'partner'; id: string; partner: Partner }
  | { kind: 'operator'; id: string };

declare module 'fastify' {
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

async function authenticate(cdb: CloudDatabase, kind: KeyOwnerKind, req: FastifyRequest): Promise<AuthenticatedCaller> {
  const header = req.headers[API_KEY_HEADERS[kind]];
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
      return { kind, id: await authenticateOperator(cdb, header) };
  }
}

const plugin: FastifyPluginAsync<{ deps: Pick<ServiceDeps, 'cdb'> }> = (app, { deps }) => {
  /** `<group prefix>/` -> key kind, filled as the route groups declare themselves. */
  const groups: { prefix: string; kind: KeyOwnerKind }[] = [];

  app.decorateRequest('caller', null);
  app.decorate('requireApiKey', function requireApiKey(this: FastifyInstance, kind: KeyOwnerKind): void {
    const prefix = `${this.prefix}/`;
    if (!groups.some((g) => g.prefix === prefix)) groups.push({ prefix, kind });
    this.addHook('onRequest', async (req) => {
      req.caller = await authenticate(deps.cdb, kind, req);
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

/** The calling partner, in a route group that requires partner keys. */
export function partnerOf(req: FastifyRequest): Partner {
  if (req.caller?.kind !== 'partner') throw programmingError('partner');
  return req.caller.partner;
}
