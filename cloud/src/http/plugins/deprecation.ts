/**
 * Retiring an operation or an old form of its request, declared in one place: the route's config.
 *
 *   config: { deprecated: { since, sunset, link, replacement } }            the whole operation
 *   config: { deprecatedForms: [{ form, usedBy, since, sunset, link, replacement }] }  an old form
 *
 * Every answer of a deprecated operation, and every answer to a request in a deprecated form,
 * carries `Deprecation: @<unix time>` (RFC 9745), `Sunset: <HTTP-date>` (RFC 8594) and
 * `Link: <link>; rel="deprecation"`, refusals included. The OpenAPI document marks a deprecated
 * operation `deprecated: true`, lists the three headers on each of its answers and keeps the
 * dates in `x-deprecations` (openapi/finish.ts). The policy (docs/compatibility.md): a sunset at
 * least MIN_DEPRECATION_DAYS after the deprecation, refused at start otherwise.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';

/** The shortest time between deprecating something and removing it. */
export const MIN_DEPRECATION_DAYS = 180;

export interface Retirement {
  /** The day it was deprecated, YYYY-MM-DD (UTC midnight): the Deprecation header. */
  since: string;
  /** The day from which it may be removed, YYYY-MM-DD (UTC midnight): the Sunset header. */
  sunset: string;
  /** Where the retirement and its replacement are described: the Link header's target. */
  link: string;
  /** What to use instead, in the OpenAPI description. */
  replacement: string;
}

export interface DeprecatedForm extends Retirement {
  /** The old form, in the OpenAPI description (e.g. `the body {"failing": true}`). */
  form: string;
  /** Whether a request is in the old form. Called on every answer, also to requests that failed validation. */
  usedBy: (request: FastifyRequest) => boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation is deprecated: every answer carries Deprecation, Sunset and Link. */
    deprecated?: Retirement;
    /** Old forms the operation still accepts: an answer to a request in one carries the headers. */
    deprecatedForms?: DeprecatedForm[];
  }
}

/** What the OpenAPI document keeps of a retirement (x-deprecations). */
export interface DocumentedRetirement {
  form?: string;
  since: string;
  sunset: string;
  link: string;
  replacement: string;
}

const DAY_MS = 86_400_000;

function dayOf(text: string, what: string): Date {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : undefined;
  if (!day || Number.isNaN(day.getTime())) throw new Error(`${what}: "${text}" is not a day (YYYY-MM-DD)`);
  return day;
}

/** Checks a retirement against the policy; throws naming the route. */
function checkRetirement(r: Retirement, route: string): void {
  const since = dayOf(r.since, `${route} since`);
  const sunset = dayOf(r.sunset, `${route} sunset`);
  if (sunset.getTime() - since.getTime() < MIN_DEPRECATION_DAYS * DAY_MS) {
    throw new Error(`${route}: the sunset ${r.sunset} is less than ${MIN_DEPRECATION_DAYS} days after ${r.since}`);
  }
  if (r.link.length === 0 || /[<>\s]/.test(r.link)) throw new Error(`${route}: the deprecation link must be a URI reference`);
}

/** The three headers of an answer to something retired. */
export function retirementHeaders(r: Retirement): Record<'Deprecation' | 'Sunset' | 'Link', string> {
  return {
    Deprecation: `@${Math.floor(dayOf(r.since, 'since').getTime() / 1000)}`,
    Sunset: dayOf(r.sunset, 'sunset').toUTCString(),
    Link: `<${r.link}>; rel="deprecation"`,
  };
}

function documented(r: Retirement, form?: string): DocumentedRetirement {
  return { ...(form ? { form } : {}), since: r.since, sunset: r.sunset, link: r.link, replacement: r.replacement };
}

function declare(route: RouteOptions): void {
  const { deprecated, deprecatedForms } = route.config ?? {};
  if (!deprecated && !deprecatedForms?.length) return;
  const name = `${String(route.method)} ${route.url}`;
  const all = [...(deprecated ? [deprecated] : []), ...(deprecatedForms ?? [])];
  for (const r of all) checkRetirement(r, name);
  const schema = { ...(route.schema ?? {}) } as Record<string, unknown>;
  if (deprecated) schema.deprecated = true;
  schema['x-deprecations'] = [...(deprecated ? [documented(deprecated)] : []), ...(deprecatedForms ?? []).map((f) => documented(f, f.form))];
  route.schema = schema;
}

/** The retirement an answer to `request` is under, if any: the operation's first, else its first form the request uses. */
function retirementOf(request: FastifyRequest): Retirement | undefined {
  const { deprecated, deprecatedForms } = request.routeOptions.config;
  return deprecated ?? deprecatedForms?.find((f) => f.usedBy(request));
}

function addHeaders(reply: FastifyReply, r: Retirement): void {
  const h = retirementHeaders(r);
  reply.header('Deprecation', h.Deprecation).header('Sunset', h.Sunset);
  const link = reply.getHeader('link');
  reply.header('Link', link ? `${String(link)}, ${h.Link}` : h.Link);
}

const plugin: FastifyPluginAsync = (app) => {
  app.addHook('onRoute', declare);
  app.addHook('onSend', (request, reply, payload, done) => {
    const r = retirementOf(request);
    if (r) addHeaders(reply, r);
    done(null, payload);
  });
  return Promise.resolve();
};

/** Register before the routes and before @fastify/swagger, so the document sees the marks. */
export const deprecation = fp(plugin, { name: 'deprecation' });
