/**
 * Retiring an operation or an old request form (http/plugins/deprecation.ts), over real HTTP.
 * Nothing of the cloud's API is retired today, so the retired routes here are registered by the
 * test alone, through the same route config a cloud route would use, on an app with the cloud's
 * document options; the cloud itself is checked to send the headers on none of its answers.
 */
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { OpenApiDocument } from '../../cloud/src/http/openapi/document-types.js';
import { swaggerOptions } from '../../cloud/src/http/openapi/document.js';
import { deprecation, type DeprecatedForm, type Retirement } from '../../cloud/src/http/plugins/deprecation.js';
import { KEYS } from './helpers/fleet-fixtures.js';
import { startTestCloud, type TestCloud } from './helpers/test-cloud.js';

const RETIRED: Retirement = { since: '2026-12-01', sunset: '2027-06-01', link: 'https://lockers.example/docs/compatibility#retired', replacement: 'GET /api/v4/current' };
const OLD_FORM: DeprecatedForm = {
  form: 'the body field `title`',
  usedBy: (req) => typeof req.body === 'object' && req.body !== null && 'title' in req.body,
  since: '2026-12-15',
  sunset: '2027-12-15',
  link: '/docs/compatibility#title',
  replacement: 'the body field `name`',
};
const HEADERS = ['deprecation', 'sunset', 'link'];

async function appWith(routes: (app: FastifyInstance) => void): Promise<FastifyInstance> {
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await app.register(deprecation);
  await app.register(fastifySwagger, swaggerOptions);
  routes(app);
  await app.ready();
  return app;
}

let app: FastifyInstance;
let base: string;
beforeAll(async () => {
  app = await appWith((a) => {
    const typed = a.withTypeProvider<ZodTypeProvider>();
    typed.get(
      '/api/v4/old',
      { schema: { operationId: 'getOld', querystring: z.object({ fail: z.literal('yes').optional() }), response: { 200: z.object({ ok: z.boolean() }), 400: z.object({ message: z.string(), resultCode: z.int() }) } }, config: { deprecated: RETIRED } },
      async (req, reply) => (req.query.fail ? reply.code(400).send({ message: 'refused', resultCode: 3 }) : { ok: true }),
    );
    typed.post(
      '/api/v4/things',
      { schema: { operationId: 'createThing', body: z.union([z.object({ name: z.string() }), z.object({ title: z.string() })]) }, config: { deprecatedForms: [OLD_FORM] } },
      (req) => ({ name: 'name' in req.body ? req.body.name : req.body.title }),
    );
    typed.get('/api/v4/current', { schema: { operationId: 'getCurrent' } }, () => ({ ok: true }));
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => app.close());

const present = (res: Response) => HEADERS.filter((h) => res.headers.has(h));
const post = (body: unknown) => fetch(`${base}/api/v4/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('deprecation', () => {
  it('marks every answer of a deprecated operation, refusals too, with RFC 9745 Deprecation, RFC 8594 Sunset and the Link', async () => {
    for (const res of [await fetch(`${base}/api/v4/old`), await fetch(`${base}/api/v4/old?fail=yes`), await fetch(`${base}/api/v4/old?fail=no`)]) {
      expect(res.headers.get('deprecation')).toBe(`@${Date.UTC(2026, 11, 1) / 1000}`);
      expect(res.headers.get('sunset')).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
      expect(res.headers.get('link')).toBe('<https://lockers.example/docs/compatibility#retired>; rel="deprecation"');
    }
  });

  it('marks the answers to a request in a deprecated form, and only those', async () => {
    const old = await post({ title: 'a' });
    expect(await old.json()).toEqual({ name: 'a' });
    expect(old.headers.get('deprecation')).toBe('@1797292800');
    expect(old.headers.get('sunset')).toBe('Wed, 15 Dec 2027 00:00:00 GMT');
    expect(old.headers.get('link')).toBe('</docs/compatibility#title>; rel="deprecation"');
    const current = await post({ name: 'a' });
    expect(current.status).toBe(200);
    expect(present(current)).toEqual([]);
    expect(present(await post({ neither: 1 }))).toEqual([]);
  });

  it('sends none of the headers on other operations or unknown paths', async () => {
    expect(present(await fetch(`${base}/api/v4/current`))).toEqual([]);
    expect(present(await fetch(`${base}/api/v4/nowhere`))).toEqual([]);
  });

  it('documents it: the operation deprecated, the headers on each of its answers, the dates and the replacement', () => {
    const doc = app.swagger() as unknown as OpenApiDocument;
    const old = doc.paths['/api/v4/old']!.get!;
    expect(old.deprecated).toBe(true);
    expect(old['x-deprecations']).toEqual([{ since: '2026-12-01', sunset: '2027-06-01', link: RETIRED.link, replacement: RETIRED.replacement }]);
    expect(old.description).toContain('Deprecated since 2026-12-01, may be removed from 2027-06-01 on; instead: GET /api/v4/current');
    for (const response of Object.values(old.responses)) expect(Object.keys(response.headers ?? {})).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    const things = doc.paths['/api/v4/things']!.post!;
    expect(things.deprecated).toBeUndefined();
    expect(things['x-deprecations']).toEqual([{ form: OLD_FORM.form, since: OLD_FORM.since, sunset: OLD_FORM.sunset, link: OLD_FORM.link, replacement: OLD_FORM.replacement }]);
    expect(things.description).toContain('Deprecated form: the body field `title`');
    expect(Object.keys(things.responses['200']?.headers ?? {})).toEqual(['Deprecation', 'Sunset', 'Link']);
    const current = doc.paths['/api/v4/current']!.get!;
    expect([current.deprecated, current['x-deprecations'], current.responses['200']?.headers]).toEqual([undefined, undefined, undefined]);
    expect(Object.keys(doc.components.headers ?? {})).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
  });

  it(`refuses at start a sunset less than 180 days after the deprecation, or a day that is not one`, async () => {
    const tooSoon = appWith((a) => a.get('/api/v4/soon', { config: { deprecated: { ...RETIRED, sunset: '2027-05-29' } } }, () => ({})));
    await expect(tooSoon).rejects.toThrow('GET /api/v4/soon: the sunset 2027-05-29 is less than 180 days after 2026-12-01');
    const notADay = appWith((a) => a.get('/api/v4/when', { config: { deprecatedForms: [{ ...OLD_FORM, since: 'soon' }] } }, () => ({})));
    await expect(notADay).rejects.toThrow('GET /api/v4/when since: "soon" is not a day (YYYY-MM-DD)');
  });
});

describe('the cloud today', () => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud('sqlite');
  });
  afterAll(async () => tc.stop());

  it('retires nothing: no answer carries Deprecation and its document marks no operation deprecated', async () => {
    const url = tc.cloud.url;
    const answers = await Promise.all([
      fetch(`${url}/health`),
      fetch(`${url}/api/v4/auth/postamat/available`, { headers: { 'X-Service-Api-Key': KEYS.shopA } }),
      fetch(`${url}/api/v4/auth/postamat/available`),
      fetch(`${url}/operator/notifications/redeliver`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Operator-Api-Key': KEYS.operator }, body: '{"failing":true}' }),
      fetch(`${url}/api/v4/nowhere`),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 401, 200, 404]);
    for (const res of answers) expect(present(res)).toEqual([]);
    const doc = (await (await fetch(`${url}/docs/json`)).json()) as OpenApiDocument;
    const marked = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).filter(([, op]) => op.deprecated || op['x-deprecations']).map(([m]) => `${m} ${path}`));
    expect(marked).toEqual([]);
  });
});
