/**
 * The compatibility check (npm run check:api-compat): the repository's document keeps the
 * published one's promises, and the rules, tried on small documents, tell breaking changes from
 * additive ones and honour a changelog's declaration.
 */
import { describe, expect, it } from 'vitest';
import { declaredBreaking } from '../../scripts/api-compat/changelog.js';
import { checkRepository, describe as describeChange, undeclaredBreakingChanges } from '../../scripts/api-compat/check.js';
import { breakingChanges } from '../../scripts/api-compat/compare.js';

type Doc = ReturnType<typeof published>;

/** A small published document: one operation with a query parameter, a body, an answer and a notification. */
function published() {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '4.0.0' },
    paths: {
      '/api/v4/things': {
        post: {
          operationId: 'createThing',
          security: [{ serviceApiKey: [] as string[] }] as Record<string, string[]>[],
          parameters: [{ name: 'dry', in: 'query', required: false, schema: { type: 'string' } }] as Record<string, unknown>[],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingInput' } } } },
          responses: {
            '200': {
              description: 'created',
              headers: { 'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' } } as Record<string, unknown>,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
            },
            '400': { description: 'refused', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
          },
        },
      },
    } as Record<string, Record<string, unknown>>,
    webhooks: {
      'thing-status': { post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingStatus' } } } }, responses: { '200': { description: 'ok' } } } },
    } as Record<string, unknown>,
    components: {
      headers: { 'RateLimit-Limit': { schema: { type: 'integer' } } },
      schemas: {
        ThingInput: {
          type: 'object',
          properties: { name: { type: 'string', maxLength: 100 }, count: { type: 'integer' }, size: { type: 'string', enum: ['s', 'm'] } },
          required: ['name'],
        },
        Thing: {
          type: 'object',
          properties: { id: { type: 'number' }, ready: { type: 'string', enum: ['true', 'false'] }, state: { type: 'integer', enum: [0, 1] }, note: { type: ['string', 'null'] } },
          required: ['id', 'ready', 'state', 'note'],
        },
        ThingStatus: { type: 'object', properties: { state: { type: 'integer', enum: [0, 1] } }, required: ['state'] },
        ErrorEnvelope: { type: 'object', properties: { message: { type: 'string' }, resultCode: { type: 'integer', enum: [1, 3] } }, required: ['message', 'resultCode'] },
      } as Record<string, { type: string; properties: Record<string, Record<string, unknown>>; required: string[]; additionalProperties?: boolean }>,
    },
  };
}

const op = (d: Doc) => d.paths['/api/v4/things']!.post as Record<string, unknown> & { parameters: Record<string, unknown>[]; responses: Record<string, unknown> };
const schemas = (d: Doc) => d.components.schemas;

/** The rules broken by the change `edit` makes to the published document. */
function rulesBroken(edit: (d: Doc) => void): string[] {
  const after = published();
  edit(after);
  return breakingChanges(published(), after).map((c) => c.rule);
}

describe('the compatibility check', () => {
  it('passes on the repository: docs/openapi.json against the published v4 document and CHANGELOG.md', () => {
    expect(checkRepository().map(describeChange)).toEqual([]);
  });

  it.each<[string, (d: Doc) => void]>([
    ['a new optional request field', (d) => { schemas(d).ThingInput!.properties.colour = { type: 'string' }; }],
    ['a new answer field', (d) => { schemas(d).Thing!.properties.colour = { type: 'string' }; }],
    ['a new operation', (d) => { d.paths['/api/v4/other'] = { get: { operationId: 'getOther', responses: { '200': { description: 'ok' } } } }; }],
    ['a new optional query parameter', (d) => { op(d).parameters.push({ name: 'page', in: 'query', required: false, schema: { type: 'integer' } }); }],
    ['a new enum value in an answer and in a notification', (d) => { schemas(d).Thing!.properties.state!.enum = [0, 1, 2]; schemas(d).ThingStatus!.properties.state!.enum = [0, 1, 2]; }],
    ['a new resultCode', (d) => { schemas(d).ErrorEnvelope!.properties.resultCode!.enum = [1, 3, 4]; }],
    ['a new enum value a request takes', (d) => { schemas(d).ThingInput!.properties.size!.enum = ['s', 'm', 'l']; }],
    ['an answer number narrowed to integer', (d) => { schemas(d).Thing!.properties.id!.type = 'integer'; }],
    ['an answer no longer null', (d) => { schemas(d).Thing!.properties.note!.type = 'string'; }],
    ['a request integer widened to number', (d) => { schemas(d).ThingInput!.properties.count!.type = 'number'; }],
    ['a request bound loosened', (d) => { schemas(d).ThingInput!.properties.name!.maxLength = 200; }],
    [
      'descriptions, tags, servers, summaries, examples and new answer headers',
      (d) => {
        Object.assign(d as Record<string, unknown>, { servers: [{ url: 'https://lockers.example' }], tags: [{ name: 'things', description: 'd' }] });
        Object.assign(op(d), { summary: 's', description: 'd', tags: ['things'] });
        schemas(d).Thing!.properties.id!.description = 'the id';
        Object.assign(op(d).responses['400'] as object, { headers: { 'Retry-After': { schema: { type: 'integer' } } } });
        Object.assign(op(d).parameters[0]!, { description: 'd', examples: { a: { value: 'x' } } });
      },
    ],
    ['the operation marked deprecated', (d) => { op(d).deprecated = true; }],
    ['an error status removed', (d) => { delete op(d).responses['400']; }],
  ])('lets pass %s', (_, edit) => {
    expect(rulesBroken(edit)).toEqual([]);
  });

  it.each<[string, (d: Doc) => void, string]>([
    ['a removed operation', (d) => { delete d.paths['/api/v4/things']; }, 'operation-removed'],
    ['a removed notification', (d) => { d.webhooks = {}; }, 'operation-removed'],
    ['a changed operationId', (d) => { op(d).operationId = 'makeThing'; }, 'operation-id-changed'],
    ['another key', (d) => { op(d).security = [{ partnerApiKey: [] }]; }, 'security-changed'],
    ['a removed answer field', (d) => { delete schemas(d).Thing!.properties.note; }, 'field-removed'],
    ['a removed request field', (d) => { delete schemas(d).ThingInput!.properties.count; }, 'field-removed'],
    ['a request field made required', (d) => { schemas(d).ThingInput!.required.push('count'); }, 'field-required'],
    ['a new required request field', (d) => { schemas(d).ThingInput!.properties.colour = { type: 'string' }; schemas(d).ThingInput!.required.push('colour'); }, 'field-required'],
    ['an answer field made optional', (d) => { schemas(d).Thing!.required = ['id']; }, 'field-optional'],
    ['an answer string turned boolean', (d) => { schemas(d).Thing!.properties.ready = { type: 'boolean' }; }, 'type-changed'],
    ['a request string turned boolean', (d) => { schemas(d).ThingInput!.properties.name!.type = 'boolean'; }, 'type-changed'],
    ['an answer integer widened to number', (d) => { schemas(d).Thing!.properties.state!.type = 'number'; }, 'type-changed'],
    ['an answer field that may now be null', (d) => { schemas(d).Thing!.properties.id!.type = ['number', 'null']; }, 'type-changed'],
    ['a request integer turned string', (d) => { schemas(d).ThingInput!.properties.count!.type = 'string'; }, 'type-changed'],
    ['a notification field turned string', (d) => { schemas(d).ThingStatus!.properties.state!.type = 'string'; }, 'type-changed'],
    ['an enum value gone from an answer', (d) => { schemas(d).Thing!.properties.state!.enum = [0]; }, 'enum-value-removed'],
    ['an enum value a request no longer takes', (d) => { schemas(d).ThingInput!.properties.size!.enum = ['s']; }, 'enum-value-removed'],
    ['a request field restricted to an enum', (d) => { schemas(d).ThingInput!.properties.name!.enum = ['a']; }, 'enum-added'],
    ['a removed query parameter', (d) => { op(d).parameters = []; }, 'parameter-removed'],
    ['a query parameter made required', (d) => { op(d).parameters[0]!.required = true; }, 'parameter-required'],
    ['a new required header', (d) => { op(d).parameters.push({ name: 'X-Thing', in: 'header', required: true, schema: { type: 'string' } }); }, 'parameter-required'],
    ['a tighter request bound', (d) => { schemas(d).ThingInput!.properties.name!.maxLength = 50; }, 'bound-tightened'],
    ['a request object closed', (d) => { schemas(d).ThingInput!.additionalProperties = false; }, 'closed-object'],
    ['a removed answer header', (d) => { Object.assign(op(d).responses['200'] as object, { headers: {} }); }, 'header-removed'],
    ['a removed success status', (d) => { op(d).responses = { '201': op(d).responses['200'] }; }, 'success-status-changed'],
  ])('fails %s', (_, edit, rule) => {
    expect(rulesBroken(edit)).toContain(rule);
  });

  it('lets a breaking change pass when the Unreleased section declares it, by operationId or method and path', () => {
    const after = published();
    delete schemas(after).Thing!.properties.note;
    after.webhooks = {};
    const changelog = (lines: string) => `# Changelog\n\n## [Unreleased]\n\n### Removed\n\n${lines}\n\n## [4.0.0] - 2026-11-28\n\n- BREAKING: webhook thing-status gone\n`;
    expect(undeclaredBreakingChanges(published(), after, changelog('- Nothing breaking')).map((c) => c.rule)).toEqual(['field-removed', 'operation-removed']);
    expect(undeclaredBreakingChanges(published(), after, changelog('- BREAKING: `createThing`: `note` removed after its sunset')).map((c) => c.names.at(-1))).toEqual(['webhook thing-status']);
    expect(undeclaredBreakingChanges(published(), after, changelog('- BREAKING: POST /api/v4/things: note removed\n- BREAKING: webhook thing-status: retired'))).toEqual([]);
  });

  it('reads declarations only from the Unreleased section', () => {
    const text = '# Changelog\n\n## [Unreleased]\n\n- BREAKING: `createThing` x\n- BREAKING: DELETE /operator/x/{id}: y\n- Added: BREAKING: notThis\n\n## [4.0.0]\n\n- BREAKING: older\n';
    expect([...declaredBreaking(text)]).toEqual(['createThing', 'DELETE /operator/x/{id}']);
  });
});
