/**
 * /operator/session: the console signs in with an operator key and gets the `operator_session`
 * cookie and a CSRF token (operator/sessions.ts); who am I; sign out.
 */
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../../contract/common.js';
import { z } from 'zod';
import { SignInGuard } from '../../../guard/sign-in-guessing.js';
import { cookieValue, SESSION_COOKIE, sessionCookie, signIn, signOut } from '../../../operator/sessions.js';
import { OPERATOR_ROLES } from '../../../repositories/operators.js';
import type { ServiceDeps } from '../../../services.js';
import { operatorOf } from '../../plugins/authentication.js';
import { iso, operatorErrors, security } from './shared.js';

const sessionView = z
  .object({
    operator: z.string(),
    role: z.enum(OPERATOR_ROLES),
    csrfToken: z.string().describe('send as X-CSRF-Token with every request but GET'),
    expiresAt: z.string().nullable().describe('UTC, ISO 8601; moves on with use (idle expiry); null when signed in by key'),
  })
  .meta({ example: { operator: 'duty-desk', role: 'operator', csrfToken: 'q8Jx2k...', expiresAt: '2030-03-04T21:00:00.000Z' } });

function isHttps(req: FastifyRequest): boolean {
  return req.protocol === 'https';
}

export const sessionRoutes: FastifyPluginAsyncZod<{ deps: ServiceDeps }> = (app, { deps }) => {
  const guard = new SignInGuard(deps);

  app.post(
    '/session',
    {
      config: { anonymous: true },
      schema: {
        operationId: 'signInOperator',
        tags: ['operator'],
        summary: 'Sign in to the operator console with an operator key (sets the operator_session cookie)',
        body: z.object({ key: z.string().min(1).max(512) }).meta({ example: { key: 'the-operator-key' } }),
        // Anonymous: no role to refuse, so no 403.
        response: { 200: sessionView, ...errorResponses },
      },
    },
    async (req, reply) => {
      const session = await guard.guard(req.ip, () => signIn(deps, req.body.key));
      void reply.header('set-cookie', sessionCookie(session.token, isHttps(req)));
      return { operator: session.operator, role: session.role, csrfToken: session.csrfToken, expiresAt: iso(session.expiresAt) };
    },
  );

  app.get(
    '/session',
    {
      schema: { operationId: 'getOperatorSession', tags: ['operator'], summary: 'Who is signed in (with the CSRF token of the session)', security, response: { 200: sessionView, ...operatorErrors } },
    },
    (req) => {
      const caller = operatorOf(req);
      return Promise.resolve({ operator: caller.id, role: caller.role, csrfToken: caller.session?.csrfToken ?? '', expiresAt: iso(caller.session?.expiresAt ?? null) });
    },
  );

  app.delete(
    '/session',
    {
      config: { anyRole: true },
      schema: {
        operationId: 'signOutOperator',
        tags: ['operator'],
        summary: 'Sign out (the session ends, the cookie is cleared)',
        security,
        response: { 200: z.object({ signedOut: z.literal(true) }), ...operatorErrors },
      },
    },
    async (req, reply) => {
      const token = cookieValue(req.headers.cookie, SESSION_COOKIE);
      if (token && operatorOf(req).session) await signOut(deps, token);
      void reply.header('set-cookie', sessionCookie(null, isHttps(req)));
      return { signedOut: true as const };
    },
  );
  return Promise.resolve();
};
