/**
 * Finishes the document @fastify/swagger builds from the route schemas: named component schemas
 * (the zod schemas with an id, fastify-type-provider-zod), the described `resultCode` enum, a
 * description and examples for every request and every answer status (examples/), the outbound
 * notifications as webhooks, the headers and dates of what is retired (retirements.ts), and no
 * component that nothing references.
 */
import { jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { SwaggerTransformObject } from '@fastify/swagger';
import type { ResultCode } from '../../../../shared/src/enums.js';
import type { KeyOwnerKind } from '../auth.js';
import { FRAMEWORK_REFUSALS_RU, httpStatusOf, invalidRequestMessage } from '../error-handler.js';
import { KEY_IN_FLIGHT_MESSAGE, KEY_REUSED_MESSAGE } from '../../idempotency/idempotency-key.js';
import { HTTP_METHODS, type ExampleObject, type JsonObject, type OpenApiDocument, type Operation, type Response } from './document-types.js';
import { OPERATION_EXAMPLES } from './examples/index.js';
import { codeExampleName, type OperationExamples, type RequestExample } from './examples/types.js';
import { commonCodes, resultCodeInfo, resultCodeSchema } from './result-codes.js';
import { OPERATION_DESCRIPTIONS } from './operation-descriptions.js';
import { REQUEST_ID_HEADER_DOC, REQUEST_ID_PARAMETER } from './request-id.js';
import { documentRetirements } from './retirements.js';
import { notificationWebhooks, RECEIVER_AUTH_SCHEME, receiverAuthScheme } from './webhooks.js';

/** Security scheme of each key kind (the routes name them in `security`). */
export const KEY_SCHEMES: Record<KeyOwnerKind, { scheme: string; header: string }> = {
  marketplace: { scheme: 'serviceApiKey', header: 'X-Service-Api-Key' },
  partner: { scheme: 'partnerApiKey', header: 'Partner-Api-Key' },
  operator: { scheme: 'operatorApiKey', header: 'X-Operator-Api-Key' },
};

const ERROR_STATUS: Record<string, string> = {
  '400': 'Refused: a malformed request (code 3) or a refusal of the operation (its own codes). Nothing changed.',
  '401': 'Refused: the API key is missing or unknown, or its owner is not active.',
  '413': 'Refused: the body is over BODY_LIMIT_BYTES (code 3).',
  '429': 'Refused for now (code 4): the caller is over its rate limit. Nothing changed.',
  '500': 'A failure of the service (code 2). The request may be sent again.',
};

/** Statuses a refusal names itself (not httpStatusOf its code): the body limit and the Idempotency-Key's two. */
const STATUS_NAMED_BY_ERROR: Record<string, { code: ResultCode; message: string }> = {
  '413': { code: 3, message: invalidRequestMessage({ ru: FRAMEWORK_REFUSALS_RU.FST_ERR_CTP_BODY_TOO_LARGE!, en: 'Request body is too large' }).ru },
  '409': { code: 4, message: KEY_IN_FLIGHT_MESSAGE.ru },
  '422': { code: 3, message: invalidRequestMessage(KEY_REUSED_MESSAGE).ru },
};

const RATE_LIMIT_HEADERS: Record<string, JsonObject> = {
  'RateLimit-Limit': { description: "requests allowed per window to the caller's key", schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': { description: 'requests left in this window', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'seconds until the window ends', schema: { type: 'integer', minimum: 0 } },
};
const RETRY_AFTER = { description: 'seconds to wait before sending again', schema: { type: 'integer', minimum: 0 } };
const HEADERS: Record<string, JsonObject> = { ...RATE_LIMIT_HEADERS, 'Retry-After': RETRY_AFTER, 'X-Request-Id': REQUEST_ID_HEADER_DOC };

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

function keyKindOf(op: Operation): KeyOwnerKind | undefined {
  const scheme = Object.keys(op.security?.[0] ?? {})[0];
  return (Object.entries(KEY_SCHEMES) as [KeyOwnerKind, { scheme: string }][]).find(([, s]) => s.scheme === scheme)?.[0];
}

function refusal(code: ResultCode, message = resultCodeInfo(code).message): ExampleObject {
  const info = resultCodeInfo(code);
  return { summary: `${code} ${info.name}: ${info.description}`, value: { message, resultCode: code } };
}

function describeResponse(status: string, response: Response, op: Operation, ex: OperationExamples, key: KeyOwnerKind | undefined): void {
  const media = response.content?.['application/json'];
  const examples: Record<string, ExampleObject> = {};
  if (status.startsWith('2')) {
    response.description = ex.statuses?.[status] ?? ex.success;
  } else {
    response.description = ex.statuses?.[status] ?? ERROR_STATUS[status] ?? response.description;
    const ownStatus = STATUS_NAMED_BY_ERROR[status];
    if (ownStatus) {
      examples[codeExampleName(ownStatus.code)] = refusal(ownStatus.code, ownStatus.message);
    } else {
      for (const code of [...commonCodes(key), ...(ex.codes ?? [])]) if (String(httpStatusOf(code)) === status) examples[codeExampleName(code)] = refusal(code);
    }
    if (status === '429') response.headers = { ...response.headers, 'Retry-After': ref('Retry-After') };
  }
  for (const [name, a] of Object.entries(ex.answers)) {
    if (String(a.status ?? 200) === status) examples[name] = { summary: a.summary, ...(a.description ? { description: a.description } : {}), value: a.value };
  }
  if (key) response.headers = { ...Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((h) => [h, ref(h)])), ...response.headers };
  response.headers = { 'X-Request-Id': ref('X-Request-Id'), ...response.headers };
  if (media && Object.keys(examples).length > 0) media.examples = examples;
}

function describedRequest(r: RequestExample): { description?: string } {
  const text = [r.description, r.invalid ? 'Invalid on purpose: refused with code 3.' : undefined].filter(Boolean).join(' ');
  return text ? { description: text } : {};
}

/** What the operation does (operation-descriptions.ts, or the route's own), then its own refusals by code. */
function operationDescription(op: Operation, ex: OperationExamples): string | undefined {
  const own = (ex.codes ?? []).map((c) => `\`${c}\` ${resultCodeInfo(c).name} (HTTP ${httpStatusOf(c)}): ${resultCodeInfo(c).description}`);
  const text = op.description ?? (op.operationId ? OPERATION_DESCRIPTIONS[op.operationId] : undefined);
  return [text, own.length > 0 ? `Refusals of this operation beyond the common ones:\n\n${own.map((l) => `- ${l}`).join('\n')}` : undefined].filter(Boolean).join('\n\n') || undefined;
}

function describeOperation(op: Operation, ex: OperationExamples): void {
  const key = keyKindOf(op);
  const description = operationDescription(op, ex);
  if (description) op.description = description;
  // An operation that names no scheme needs no key: said explicitly, so no document-level default applies.
  op.security ??= [];
  if (!op.parameters?.some((p) => p.in === 'header' && p.name.toLowerCase() === 'x-request-id')) op.parameters = [...(op.parameters ?? []), REQUEST_ID_PARAMETER];
  const requests = Object.entries(ex.requests);
  const bodyExamples = requests.filter(([, r]) => r.body !== undefined);
  const media = op.requestBody?.content['application/json'];
  if (media && bodyExamples.length > 0) {
    media.examples = Object.fromEntries(bodyExamples.map(([name, r]) => [name, { summary: r.summary, ...describedRequest(r), value: r.body }]));
  }
  for (const p of op.parameters ?? []) {
    const source = (r: (typeof requests)[number][1]) => (p.in === 'path' ? r.params : p.in === 'query' ? r.query : p.in === 'header' ? r.headers : undefined);
    const withIt = requests.filter(([, r]) => source(r)?.[p.name] !== undefined);
    if (withIt.length > 0) p.examples = Object.fromEntries(withIt.map(([name, r]) => [name, { summary: r.summary, value: source(r)![p.name] }]));
  }
  // A body limit concerns only operations with a body.
  if (!op.requestBody) delete op.responses['413'];
  for (const [status, response] of Object.entries(op.responses)) describeResponse(status, response, op, ex, key);
}

/** A number schema whose enum or const is all integers (zod's `z.literal` of numbers) says integer. */
function integerEnums(node: unknown): void {
  if (Array.isArray(node)) node.forEach(integerEnums);
  else if (node && typeof node === 'object') {
    const s = node as JsonObject;
    const values = Array.isArray(s.enum) ? s.enum : 'const' in s ? [s.const] : undefined;
    if (s.type === 'number' && values?.every((v) => Number.isInteger(v))) s.type = 'integer';
    Object.values(s).forEach(integerEnums);
  }
}

/** Every `$ref` under `node`. */
function refsIn(node: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.add(v);
      else refsIn(v, out);
    }
  }
  return out;
}

/** Drops the component schemas nothing reaches (zod registers each schema for input and output). */
function pruneSchemas(doc: OpenApiDocument): void {
  const prefix = '#/components/schemas/';
  const reached = new Set<string>();
  const queue = [...refsIn({ paths: doc.paths, webhooks: doc.webhooks }, new Set())];
  while (queue.length > 0) {
    const r = queue.pop()!;
    if (!r.startsWith(prefix) || reached.has(r.slice(prefix.length))) continue;
    const name = r.slice(prefix.length);
    reached.add(name);
    queue.push(...refsIn(doc.components.schemas[name], new Set()));
  }
  doc.components.schemas = Object.fromEntries(Object.entries(doc.components.schemas).filter(([name]) => reached.has(name)).sort(([a], [b]) => a.localeCompare(b)));
}

export const finishDocument: SwaggerTransformObject = (input) => {
  const doc = jsonSchemaTransformObject(input) as unknown as OpenApiDocument;
  for (const schema of Object.values(doc.components.schemas)) {
    // Component ids and dialect come from zod's JSON Schema output; in OpenAPI the component name is the id.
    delete schema.$id;
    delete schema.$schema;
  }
  for (const name of ['ErrorEnvelope', 'ErrorEnvelopeInput']) {
    const envelope = doc.components.schemas[name] as { properties?: JsonObject } | undefined;
    if (envelope?.properties) envelope.properties.resultCode = resultCodeSchema();
  }
  for (const byMethod of Object.values(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = byMethod[method];
      const ex = op?.operationId ? OPERATION_EXAMPLES[op.operationId] : undefined;
      // An operation without examples stays as generated; test/openapi/examples.test.ts names it.
      if (op && ex) describeOperation(op, ex);
    }
  }
  doc.webhooks = notificationWebhooks();
  doc.components.securitySchemes = { ...doc.components.securitySchemes, [RECEIVER_AUTH_SCHEME]: receiverAuthScheme };
  doc.components.headers = HEADERS;
  integerEnums(doc);
  documentRetirements(doc);
  pruneSchemas(doc);
  return doc as unknown as ReturnType<SwaggerTransformObject>;
};
