/**
 * What the OpenAPI tests share: a cloud on the example fleet (deploy/fleet.example.json) with the
 * clock and randomness the examples assume, the operations of its live document, schema
 * validation against the document's components, and sending a request example.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FleetInput } from '../../cloud/src/fleet/fleet-schema.js';
import { HTTP_METHODS, type OpenApiDocument, type Operation } from '../../cloud/src/http/openapi/document-types.js';
import type { RequestExample } from '../../cloud/src/http/openapi/examples/types.js';
import type { RandomSource } from '../../cloud/src/random.js';
import { startTestCloud, type TestCloud } from '../cloud/helpers/test-cloud.js';

/** 2030-03-04, a Monday, 12:00 in Moscow: the examples' dates follow from it. */
export const EXAMPLES_NOW = '2030-03-04T09:00:00Z';

/** The example fleet's demo keys (docs/api.md), by security scheme. */
export const DEMO_KEYS: Record<string, string> = {
  serviceApiKey: 'demo-shop-one-key',
  partnerApiKey: 'demo-fast-courier-key',
  operatorApiKey: 'demo-operator-key',
};

/** Codes the examples show: the courier code is 40718263. */
const exampleRandom = (): RandomSource => {
  let n = 0;
  return {
    uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
    digits: (length) => '4071826359'.slice(0, length),
  };
};

export async function startExampleCloud(): Promise<TestCloud> {
  const fleet = JSON.parse(readFileSync('deploy/fleet.example.json', 'utf8')) as FleetInput;
  const tc = await startTestCloud('sqlite', { fleet, now: EXAMPLES_NOW, random: exampleRandom() });
  // Locker 101's agent has said hello and announced cell.open and service.code (no agent runs here).
  await tc.db.db.updateTable('lockers').set({ command_types: JSON.stringify(['cell.open', 'cell.flags', 'order.upsert', 'service.code']) }).where('id', '=', 101).execute();
  return tc;
}

export interface DocOperation {
  method: string;
  path: string;
  op: Operation;
  /** "GET /health" */
  label: string;
}

export function operationsOf(doc: OpenApiDocument): DocOperation[] {
  return Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    HTTP_METHODS.filter((m) => byMethod[m]).map((method) => ({ method: method.toUpperCase(), path, op: byMethod[method]!, label: `${method.toUpperCase()} ${path}` })),
  );
}

/** Validates values against schemas of the document (its component references resolved). */
export class DocumentSchemas {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(doc: OpenApiDocument) {
    addFormats.default(this.#ajv);
    this.#ajv.addSchema({ $id: 'doc', $defs: JSON.parse(this.#local(doc.components.schemas)) as unknown });
  }

  #local(schema: unknown): string {
    return JSON.stringify(schema ?? {}).replaceAll('"#/components/schemas/', '"doc#/$defs/');
  }

  /** Problems of `value` against `schema`, as text; empty when it is valid. */
  problems(schema: unknown, value: unknown): string[] {
    const text = this.#local(schema);
    let validate = this.#compiled.get(text);
    if (!validate) this.#compiled.set(text, (validate = this.#ajv.compile(JSON.parse(text) as object)));
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
  }
}

/** Where `actual` differs from `shown`: objects with the same fields, arrays with at least the items shown, equal values (measured times: any number). */
export function differences(actual: unknown, shown: unknown, at = ''): string[] {
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return [`${at || '/'}: expected an array`];
    if (actual.length < shown.length) return [`${at || '/'}: ${actual.length} items, the example shows ${shown.length}`];
    return shown.flatMap((item, i) => differences(actual[i], item, `${at}/${i}`));
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${at || '/'}: expected an object`];
    const a = actual as Record<string, unknown>;
    const s = shown as Record<string, unknown>;
    const keys = new Set([...Object.keys(a), ...Object.keys(s)]);
    return [...keys].flatMap((k) => (!(k in s) ? [`${at}/${k}: answered, not in the example`] : !(k in a) ? [`${at}/${k}: in the example, not answered`] : differences(a[k], s[k], `${at}/${k}`)));
  }
  // A measured time (readiness's database latency) differs on every call: any number answers it.
  if (at.endsWith('/latencyMs') && typeof actual === 'number' && typeof shown === 'number') return [];
  return Object.is(actual, shown) ? [] : [`${at || '/'}: ${JSON.stringify(actual)}, the example shows ${JSON.stringify(shown)}`];
}

export interface Sent {
  status: number;
  body: unknown;
}

/** Sends a request example of `op` as a client would: path and query parameters, headers, the key of its security scheme, the JSON body. */
export async function send(baseUrl: string, doc: OpenApiDocument, { method, path, op }: DocOperation, ex: RequestExample): Promise<Sent> {
  const url = new URL(baseUrl + path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(ex.params?.[name]))));
  for (const [k, v] of Object.entries(ex.query ?? {})) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { ...ex.headers };
  const scheme = Object.keys(op.security?.[0] ?? {})[0];
  const keyHeader = scheme ? (doc.components.securitySchemes[scheme] as { name: string }).name : undefined;
  // A request may name another key of the scheme (the sandbox takes only a sandbox marketplace's).
  const ownKey = Object.keys(headers).some((h) => h.toLowerCase() === keyHeader?.toLowerCase());
  if (scheme && keyHeader && !ownKey) headers[keyHeader] = DEMO_KEYS[scheme]!;
  if (ex.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(url, { method, headers, ...(ex.body !== undefined ? { body: JSON.stringify(ex.body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}
