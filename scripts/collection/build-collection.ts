/**
 * The Postman collection (format v2.1) and its environment for the example fleet, made from the
 * published document: each request of the walk (walk.ts) takes its method, path, key header and
 * example from docs/openapi.json, and its test script asserts the status and resultCode of the
 * answer the document gives. A step naming an operation or example the document no longer has is
 * an error, so the collection cannot outlive the contract.
 */
import { WALK, type Step } from './walk.js';

interface Example {
  value: unknown;
}
interface Parameter {
  in: string;
  name: string;
  examples?: Record<string, Example>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { examples?: Record<string, Example> }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { examples?: Record<string, Example> }> }>;
}
export interface OpenApiDocument {
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { responses?: Record<string, Operation['responses'][string]> };
}

const SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';
export const COLLECTION_NAME = 'Parcel Locker API';

const KEY_HEADERS = {
  marketplace: { key: 'X-Service-Api-Key', value: '{{marketplaceKey}}' },
  partner: { key: 'Partner-Api-Key', value: '{{partnerKey}}' },
};

/** The environment for the example fleet (deploy/fleet.example.json) run by `npm run cloud`. */
export function exampleEnvironment(): object {
  const values = [
    ['baseUrl', 'http://127.0.0.1:8080', 'default'],
    ['marketplaceKey', 'demo-sandbox-shop-key', 'secret'],
    ['partnerKey', 'demo-sandbox-courier-key', 'secret'],
    ['postamatId', '901', 'default'],
    // The locker's offset from UTC in minutes (Europe/Moscow: +3 hours all year); Postman's script sandbox has no time zones.
    ['lockerUtcOffsetMinutes', '180', 'default'],
  ] as const;
  return {
    name: 'Parcel Locker: example fleet sandbox',
    values: values.map(([key, value, type]) => ({ key, value, type, enabled: true })),
    _postman_variable_scope: 'environment',
  };
}

function operation(doc: OpenApiDocument, operationId: string): { method: string; path: string; op: Operation } {
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) if (op.operationId === operationId) return { method: method.toUpperCase(), path, op };
  }
  throw new Error(`docs/openapi.json has no operation ${operationId}`);
}

/** The document's answer example [status, name]: its resultCode, undefined for a success. */
function answer(doc: OpenApiDocument, op: Operation, step: Step): number | undefined {
  const [status, name] = step.expects;
  let response = op.responses[status];
  if (response?.$ref) response = doc.components.responses?.[response.$ref.split('/').pop()!];
  const example = response?.content?.['application/json']?.examples?.[name];
  if (!example) throw new Error(`${step.operationId} has no ${status} answer example ${name}`);
  const code = (example.value as { resultCode?: unknown }).resultCode;
  return typeof code === 'number' ? code : undefined;
}

/** JSON text where a string that is only a variable standing for a number (`"{{postamatId}}"`) is unquoted. */
function bodyText(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/"\{\{postamatId\}\}"/g, '{{postamatId}}');
}

function testScript(status: string, resultCode: number | undefined, step: Step): string[] {
  const lines = [`pm.test('status ${status}', () => pm.response.to.have.status(${Number(status)}));`, 'const body = pm.response.json();'];
  if (resultCode === undefined) lines.push("pm.test('an answer, not an error envelope', () => pm.expect(body).to.not.have.property('resultCode'));");
  else lines.push(`pm.test('resultCode ${resultCode}', () => pm.expect(body.resultCode).to.eql(${resultCode}));`);
  return [...lines, ...(step.after ?? [])];
}

function request(doc: OpenApiDocument, step: Step): object {
  const { method, path, op } = operation(doc, step.operationId);
  const rewrite = step.rewrite ?? ((v: unknown) => v);
  const header = [KEY_HEADERS[step.key ?? 'marketplace']];
  const query: { key: string; value: string }[] = [];
  let body: object | undefined;
  const bodyExamples = op.requestBody?.content['application/json']?.examples;
  if (bodyExamples) {
    const example = step.requestExample ? bodyExamples[step.requestExample] : undefined;
    if (!example) throw new Error(`${step.operationId} has no request example ${step.requestExample}`);
    header.push({ key: 'Content-Type', value: 'application/json' });
    body = { mode: 'raw', raw: bodyText(rewrite(example.value)), options: { raw: { language: 'json' } } };
  } else if (step.requestExample) {
    const values: Record<string, unknown> = {};
    for (const p of op.parameters ?? []) {
      const example = p.in === 'query' ? p.examples?.[step.requestExample] : undefined;
      if (example) values[p.name] = example.value;
    }
    if (Object.keys(values).length === 0) throw new Error(`${step.operationId} has no query example ${step.requestExample}`);
    for (const [key, value] of Object.entries(rewrite(values) as Record<string, unknown>)) query.push({ key, value: String(value) });
  } else {
    // A GET without a named example: the query example of the answer's name, when the document has one.
    for (const p of op.parameters ?? []) {
      const example = p.in === 'query' ? p.examples?.[step.expects[1]] : undefined;
      if (example) query.push({ key: p.name, value: String(example.value) });
    }
  }
  const segments = path.split('/').filter(Boolean);
  const search = query.map((q) => `${q.key}=${q.value}`).join('&');
  const resultCode = answer(doc, op, step);
  const events: object[] = [];
  if (step.before) events.push({ listen: 'prerequest', script: { type: 'text/javascript', exec: step.before } });
  events.push({ listen: 'test', script: { type: 'text/javascript', exec: testScript(step.expects[0], resultCode, step) } });
  return {
    name: step.name,
    event: events,
    request: {
      method,
      header,
      ...(body ? { body } : {}),
      url: { raw: `{{baseUrl}}${path}${search ? `?${search}` : ''}`, host: ['{{baseUrl}}'], path: segments, ...(query.length ? { query } : {}) },
      description: op.summary ?? '',
    },
  };
}

/** The collection for the document. */
export function buildCollection(doc: OpenApiDocument): object {
  return {
    info: {
      name: COLLECTION_NAME,
      description: `${doc.info.title} ${doc.info.version}: an integrator's walk through the API on the sandbox locker, generated from docs/openapi.json (npx tsx scripts/generate-collection.ts). Every request asserts the status and resultCode the document gives for its example.`,
      schema: SCHEMA,
    },
    // Before every request: today's date at the locker, the delivery date the sandbox accepts.
    event: [
      {
        listen: 'prerequest',
        script: {
          type: 'text/javascript',
          exec: [
            "const offset = Number(pm.environment.get('lockerUtcOffsetMinutes') || 180);",
            "pm.collectionVariables.set('today', new Date(Date.now() + offset * 60000).toISOString().slice(0, 10));",
          ],
        },
      },
    ],
    variable: ['today', 'orderA', 'orderB', 'routeId', 'orderACells', 'courierAccessCode'].map((key) => ({ key, value: '' })),
    item: WALK.map((folder) => ({ name: folder.name, description: folder.description, item: folder.steps.map((step) => request(doc, step)) })),
  };
}

/** A file's text: two-space JSON with a final newline. */
export function fileText(value: object): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
