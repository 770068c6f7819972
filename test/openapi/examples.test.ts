/**
 * The OpenAPI document an integrator generates a client from: every operation of the live
 * document (/docs/json) has an operationId, descriptions and examples for every request and every
 * answer status; every example is valid against its schema; and every request example, sent in
 * order to a cloud on the example fleet, gets the answer the document shows for it.
 */
import { readFileSync } from 'node:fs';
import fastifySwagger from '@fastify/swagger';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { swaggerOptions } from '../../cloud/src/http/openapi/document.js';
import type { ExampleObject, OpenApiDocument } from '../../cloud/src/http/openapi/document-types.js';
import { OPERATION_EXAMPLES } from '../../cloud/src/http/openapi/examples/index.js';
import { openApiText } from '../../cloud/src/http/openapi/published.js';
import type { TestCloud } from '../cloud/helpers/test-cloud.js';
import { differences, DocumentSchemas, operationsOf, send, startExampleCloud } from './example-world.js';

const EXAMPLES_HOME = 'cloud/src/http/openapi/examples/';

/** What the document lacks: operationIds, tags, descriptions, examples; each problem names its operation. */
function operationProblems(doc: OpenApiDocument): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const { label, op } of operationsOf(doc)) {
    const id = op.operationId;
    if (!id) {
      problems.push(`${label}: no operationId (add one to its route schema)`);
      continue;
    }
    if (!/^[a-z][a-zA-Z0-9]*$/.test(id)) problems.push(`${label}: operationId ${id} is not camelCase`);
    if (ids.has(id)) problems.push(`${label}: operationId ${id} is used twice`);
    ids.add(id);
    const ex = OPERATION_EXAMPLES[id];
    if (!ex) {
      problems.push(`${label} (${id}): no examples; add them to ${EXAMPLES_HOME}`);
      continue;
    }
    if (!op.tags?.length) problems.push(`${label}: no tag`);
    if (Object.keys(ex.requests).length === 0) problems.push(`${label}: no request example`);
    const body = op.requestBody?.content['application/json'];
    if (body && !body.examples) problems.push(`${label}: the request body has no example`);
    for (const p of op.parameters ?? []) if (p.required && !p.examples) problems.push(`${label}: parameter ${p.name} has no example`);
    for (const [status, response] of Object.entries(op.responses)) {
      if (!response.description || response.description === 'Default Response') problems.push(`${label} ${status}: no description`);
      if (!response.content?.['application/json']?.examples) problems.push(`${label} ${status}: no example`);
    }
    for (const [name, r] of Object.entries(ex.requests)) {
      const answer = r.answer ?? name;
      if (!op.responses[String(r.status)]?.content?.['application/json']?.examples?.[answer]) {
        problems.push(`${label}: request example ${name} gets answer ${r.status} ${answer}, which the document does not show`);
      }
    }
  }
  for (const id of Object.keys(OPERATION_EXAMPLES)) if (!ids.has(id)) problems.push(`examples of ${id}, which no route has`);
  return problems;
}

/** A page of a list (`items`, `total`, `page`, `pageSize`) whose items do not add up to its total, anywhere in a value. */
function pageProblems(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => pageProblems(v, `${at}[${i}]`));
  if (!value || typeof value !== 'object') return [];
  const o = value as Record<string, unknown>;
  const own: string[] = [];
  if (Array.isArray(o.items) && typeof o.total === 'number' && typeof o.page === 'number' && typeof o.pageSize === 'number') {
    const expected = Math.max(0, Math.min(o.pageSize, o.total - (o.page - 1) * o.pageSize));
    if (o.items.length !== expected) own.push(`${at || 'the page'}: ${o.items.length} items where total ${o.total}, page ${o.page} of ${o.pageSize} gives ${expected}`);
  }
  return [...own, ...Object.entries(o).flatMap(([k, v]) => pageProblems(v, `${at}.${k}`))];
}

describe('the OpenAPI document', () => {
  let tc: TestCloud;
  let doc: OpenApiDocument;
  let schemas: DocumentSchemas;
  beforeAll(async () => {
    tc = await startExampleCloud();
    doc = (await tc.call('GET', '/docs/json')).body as OpenApiDocument;
    schemas = new DocumentSchemas(doc);
  });
  afterAll(async () => {
    await tc?.stop();
  });

  it('gives every operation a stable operationId, descriptions and examples of every request and answer', () => {
    expect(operationProblems(doc)).toEqual([]);
  });

  it('names a route added without an operationId or without examples', async () => {
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(fastifySwagger, swaggerOptions);
    app.withTypeProvider<ZodTypeProvider>().get('/operator/lockers/:lockerId/doors', { schema: { operationId: 'listDoors', tags: ['operator'], params: z.object({ lockerId: z.coerce.number() }) } }, () => ({}));
    app.withTypeProvider<ZodTypeProvider>().post('/operator/doors/close', { schema: { tags: ['operator'] } }, () => ({}));
    await app.ready();
    const problems = operationProblems(app.swagger() as unknown as OpenApiDocument);
    await app.close();
    expect(problems).toEqual(
      expect.arrayContaining([
        `GET /operator/lockers/{lockerId}/doors (listDoors): no examples; add them to ${EXAMPLES_HOME}`,
        'POST /operator/doors/close: no operationId (add one to its route schema)',
      ]),
    );
  });

  it('holds only examples that are valid against their schemas, and describes every result code', () => {
    const problems: string[] = [];
    const invalidOnPurpose = (id: string | undefined, name: string) => (id ? OPERATION_EXAMPLES[id]?.requests[name]?.invalid === true : false);
    const check = (where: string, schema: unknown, examples: Record<string, ExampleObject> | undefined, id?: string) => {
      for (const [name, e] of Object.entries(examples ?? {})) {
        const found = [...schemas.problems(schema, e.value), ...pageProblems(e.value)];
        if (!invalidOnPurpose(id, name)) for (const p of found) problems.push(`${where} example ${name}: ${p}`);
        else if (found.length === 0) problems.push(`${where} example ${name}: marked invalid, but its schema accepts it`);
      }
    };
    const webhooks = Object.entries(doc.webhooks ?? {}).flatMap(([name, byMethod]) => Object.entries(byMethod).map(([m, op]) => ({ label: `webhook ${m} ${name}`, op })));
    expect(webhooks.map((w) => w.label).sort()).toEqual(['webhook post expiration-date-changes', 'webhook post order-status', 'webhook post user-access-code']);
    for (const { label, op } of [...operationsOf(doc), ...webhooks]) {
      const body = op.requestBody?.content['application/json'];
      check(`${label} body`, body?.schema, body?.examples, op.operationId);
      for (const p of op.parameters ?? []) check(`${label} ${p.in} ${p.name}`, p.schema, p.examples);
      for (const [status, response] of Object.entries(op.responses)) {
        const media = response.content?.['application/json'];
        check(`${label} ${status}`, media?.schema, media?.examples);
      }
    }
    expect(problems).toEqual([]);

    const resultCode = (doc.components.schemas.ErrorEnvelope as { properties: Record<string, { enum: number[]; 'x-enum-descriptions': string[] }> }).properties.resultCode!;
    expect(resultCode.enum).toContain(32);
    expect(resultCode['x-enum-descriptions']).toHaveLength(resultCode.enum.length);
  });

  it('answers every request example, in order, as the document shows', async () => {
    const byId = new Map(operationsOf(doc).map((o) => [o.op.operationId, o]));
    const problems: string[] = [];
    for (const [id, ex] of Object.entries(OPERATION_EXAMPLES)) {
      const operation = byId.get(id);
      if (!operation) continue; // the first test names it
      for (const [name, request] of Object.entries(ex.requests)) {
        const where = `${operation.label} (${id}) example ${name}`;
        if (request.notSent) continue; // its reason is in the example (types.ts: notSent)
        const answer = await send(tc.cloud.url, doc, operation, request);
        const media = operation.op.responses[String(answer.status)]?.content?.['application/json'];
        if (answer.status !== request.status) {
          problems.push(`${where}: answered ${answer.status} ${JSON.stringify(answer.body)}, documented ${request.status}`);
          continue;
        }
        for (const p of schemas.problems(media?.schema, answer.body)) problems.push(`${where}: the answer does not match its schema: ${p}`);
        const shown = media?.examples?.[request.answer ?? name]?.value;
        if (answer.status >= 300) {
          const code = (answer.body as { resultCode?: number }).resultCode;
          if (code !== (shown as { resultCode?: number } | undefined)?.resultCode) problems.push(`${where}: answered code ${code}, documented ${JSON.stringify(shown)}`);
        } else {
          for (const d of differences(answer.body, shown)) problems.push(`${where}: ${d}; answered ${JSON.stringify(answer.body)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('is published as docs/openapi.json (regenerate: npx tsx cloud/src/http/openapi/cli-openapi.ts)', () => {
    expect(readFileSync('docs/openapi.json', 'utf8')).toBe(openApiText(doc));
  });
});
