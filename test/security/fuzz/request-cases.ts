/**
 * fast-check arbitraries of whole requests for one operation: who calls (the key), what is sent
 * (the input class) and the bytes. Every request names its auth case and input class, so the
 * report can count outcomes per class and a failure says which rule it probes.
 */
import fc from 'fast-check';
import type { RawRequest } from './http-send.js';
import { type Mutation, mutated } from './mutate.js';
import { hugeString, oddString } from './odd-values.js';
import type { JsonSchema, KeyKind, Operation } from './openapi-operations.js';
import { schemaErrors } from './schema-check.js';
import { type Hints, schemaArbitrary } from './schema-arbitrary.js';

/** right key; a valid key of another owner (same or other kind); a wrong key; no key; open operation. */
export type AuthCase = 'right' | 'other-owner' | 'wrong' | 'missing' | 'open';

export type InputClass =
  | 'valid'
  | Mutation
  | 'malformed-json'
  | 'wrong-content-type'
  | 'no-body'
  | 'empty-body'
  | 'invalid-utf8'
  | 'oversize-body'
  | 'odd-query'
  | 'huge-query'
  | 'odd-path'
  | 'unexpected-body'
  | 'odd-text-everywhere';

export interface ApiKey {
  key: string;
  kind: KeyKind;
  owner: string;
}

export interface FuzzContext {
  /** The key each kind of operation is called with in the "right" case. */
  right: Record<KeyKind, ApiKey>;
  /** Every valid key (active or not), of every kind. */
  others: ApiKey[];
  hints: Hints;
  /**
   * Known-good bodies (the seeded orders' own, a route sheet...). Those that the operation's
   * schema accepts join the generated ones as bases for the mutations, so that mutations also
   * reach the code behind the domain's cross-field rules.
   */
  examples: unknown[];
  /** The cloud's body limit: the oversize class goes beyond it. */
  bodyLimit: number;
  /** Largest oversize body; huge strings stay below the body limit so that they reach the handlers. */
  maxHugeBytes: number;
}

export interface FuzzRequest extends RawRequest {
  auth: AuthCase;
  input: InputClass;
  /** The owner of the key sent in the operation's header, when it is a valid key. */
  caller?: ApiKey;
  /** Sent this many times in a row (a client retrying): 1 or 2. */
  times: number;
}

const HEADER_OF: Record<KeyKind, string> = { marketplace: 'X-Service-Api-Key', partner: 'Partner-Api-Key', operator: 'X-Operator-Api-Key' };

/** Header values travel as bytes: a text is sent as its UTF-8 bytes read as Latin-1. */
const asHeaderValue = (text: string): string => Buffer.from(text.replace(/[\r\n]/g, ' '), 'utf8').toString('latin1');

function wrongKey(right: string): fc.Arbitrary<string> {
  return fc.oneof(
    // (Spaces around a header value are not part of it in HTTP: " key" is the key.)
    fc.constantFrom('', 'x', `${right}x`, right.slice(0, -1), right.toUpperCase(), `Bearer ${right}`, `${right},${right}`, 'a'.repeat(513), 'null', "' OR 1=1 --"),
    oddString.map(asHeaderValue),
  );
}

interface AuthChoice {
  auth: AuthCase;
  headers: Record<string, string>;
  caller?: ApiKey;
}

function authArbitrary(op: Operation, ctx: FuzzContext): fc.Arbitrary<AuthChoice> {
  const kind = op.keyKind;
  if (!kind) {
    // Open operations: any key in any header changes nothing.
    return fc.oneof(fc.constant({ auth: 'open' as const, headers: {} }), fc.constantFrom(...ctx.others).map((k) => ({ auth: 'open' as const, headers: { [HEADER_OF[k.kind]]: k.key } })));
  }
  const header = HEADER_OF[kind];
  const right = ctx.right[kind];
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant<AuthChoice>({ auth: 'right', headers: { [header]: right.key }, caller: right }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...ctx.others.filter((k) => k.key !== right.key)).map<AuthChoice>((k) => ({ auth: 'other-owner', headers: { [header]: k.key }, caller: k })),
    },
    { weight: 2, arbitrary: wrongKey(right.key).map<AuthChoice>((key) => ({ auth: 'wrong', headers: { [header]: key } })) },
    {
      weight: 2,
      // No key in the operation's header; maybe valid keys in the other headers.
      arbitrary: fc.subarray(Object.values(ctx.right).filter((k) => k.kind !== kind)).map<AuthChoice>((keys) => ({
        auth: 'missing',
        headers: Object.fromEntries(keys.map((k) => [HEADER_OF[k.kind], k.key])),
      })),
    },
  );
}

/** Percent-encodes every byte but the unreserved ones (a lone surrogate becomes U+FFFD's bytes). */
function encode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const queryOf = (params: Record<string, unknown>): string => {
  const pairs = Object.entries(params).map(([k, v]) => `${encode(k)}=${encode(typeof v === 'string' ? v : JSON.stringify(v))}`);
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
};

const ODD_QUERY_VALUES = ['%', '%%', '%zz', '%ED%A0%80', '%C0%AF', '%00', '%FF', '', '+1', '%201', '1e3', '0x10', '-1', '0', '1.5', 'NaN', 'Infinity', '99999999999999999999999', 'true', 'null', '[]', '%27%20OR%201%3D1'];
const ODD_QUERIES = ['?', '?%', '?%%', '?&&&', '?=', '?=1', '?a', '?%ED%A0%80=1', '?__proto__[x]=1', '?constructor[prototype][x]=1', '?a[]=1&a[]=2', '?%00=%00'];

function oddQuery(op: Operation): fc.Arbitrary<string> {
  const names = [...op.queryParams.map((p) => p.name), '__proto__', 'x'];
  return fc.oneof(
    fc.constantFrom(...ODD_QUERIES),
    fc.array(fc.tuple(fc.constantFrom(...names), fc.constantFrom(...ODD_QUERY_VALUES)), { minLength: 1, maxLength: 3 }).map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
    fc.tuple(fc.constantFrom(...names), fc.constantFrom('1', '2', '%')).map(([k, v]) => `?${k}=${v}&${k}=${v}`),
  );
}

const ODD_SEGMENTS = ['-1', '0', '1.5', 'abc', '%', '%00', '%ED%A0%80', '%2F', '..', '%20', 'NaN', 'Infinity', '1e3', '99999999999999999999', '%E2%80%AE1'];

function pathWith(op: Operation, values: Record<string, string>): string {
  return op.path.replace(/\{(\w+)\}/g, (_m, name: string) => values[name] ?? '1');
}

const pathValues = (op: Operation, ctx: FuzzContext): fc.Arbitrary<Record<string, string>> =>
  fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name, schemaArbitrary(p.schema, ctx.hints, p.name).map((v) => encode(String(v)))])));

const validQuery = (op: Operation, ctx: FuzzContext): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(Object.fromEntries(op.queryParams.map((p) => [p.name, schemaArbitrary(p.schema, ctx.hints, p.name)])), {
    requiredKeys: op.queryParams.filter((p) => p.required).map((p) => p.name),
  });

const MALFORMED_JSON = [
  '{', '{"a":', '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}', 'NaN', 'undefined', '{"a":01}', '[', '{"a":"\u0000"}', '\ufeff{}',
  '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', 'null', 'true', '1', '"text"', '[]', '{"a":1e999}',
  '{"a":"\\ud800"}', '{"a":"\\u0000"}', '{"a":"\\x41"}', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`,
];
const WRONG_CONTENT_TYPES = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=utf-16', 'application/jsonx', 'application/json-patch+json', 'APPLICATION/JSON', '*/*', '', 'application/json, text/plain', 'text/json'];

interface Shape {
  input: InputClass;
  /** Sent twice in a row (a client retrying). */
  twice?: boolean;
  path: string;
  query: string;
  body?: Buffer;
  contentType?: string;
}

const KIB = 1024;

/** The known-good examples the schema accepts, if any; else generated bodies. */
function exampleBody(schema: JsonSchema, ctx: FuzzContext): fc.Arbitrary<unknown> {
  const fitting = ctx.examples.filter((e) => schemaErrors(e, schema).length === 0);
  return fitting.length > 0 ? fc.constantFrom(...fitting).map((e) => structuredClone(e)) : schemaArbitrary(schema, ctx.hints);
}

/** Generated bodies, and the known-good examples the schema accepts. */
function validBody(schema: JsonSchema, ctx: FuzzContext): fc.Arbitrary<unknown> {
  return fc.oneof(schemaArbitrary(schema, ctx.hints), exampleBody(schema, ctx));
}

/** Strings from 256 KiB up to what still fits in a body under the limit. */
function hugeInBody(ctx: FuzzContext): fc.Arbitrary<string> {
  const max = Math.max(KIB, Math.min(ctx.maxHugeBytes, ctx.bodyLimit - 16 * KIB));
  return hugeString(Math.min(256 * KIB, max), max);
}

/** Text that is not valid Unicode, or that hides itself (bidi override). */
const INVALID_TEXT = ['\ud800', '\udc00', '\udfff\ud800', '\u0000', '\uffff', '\u202e'];

/** Fields that name the order: left alone so that the request still reaches it. */
const IDENTIFIERS = new Set(['externalId', 'extId']);

/** `value` with `change` applied to every string whose schema has no pattern or format, but identifiers. */
function withFreeText(value: unknown, schema: JsonSchema, change: (text: string) => string): unknown {
  if (typeof value === 'string') return schema.pattern === undefined && schema.format === undefined && schema.enum === undefined ? change(value) : value;
  if (Array.isArray(value)) return value.map((v) => withFreeText(v, schema.items ?? {}, change));
  if (value !== null && typeof value === 'object') {
    const props = schema.properties ?? schema.anyOf?.[0]?.properties ?? {};
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, props[k] && !IDENTIFIERS.has(k) ? withFreeText(v, props[k], change) : v]));
  }
  return value;
}

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v) ?? 'null', 'utf8');

function invalidUtf8(valid: unknown): Buffer {
  const text = JSON.stringify(valid) ?? '{}';
  const at = text.indexOf(':"');
  const bad = Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]);
  if (at < 0) return Buffer.concat([Buffer.from('{"x":"'), bad, Buffer.from('"}')]);
  return Buffer.concat([Buffer.from(text.slice(0, at + 2)), bad, Buffer.from(text.slice(at + 2))]);
}

function oversize(valid: unknown, ctx: FuzzContext): fc.Arbitrary<Buffer> {
  const max = Math.max(ctx.bodyLimit + 1, ctx.maxHugeBytes);
  return fc.integer({ min: ctx.bodyLimit + 1, max }).map((size) => {
    const padded = valid !== null && typeof valid === 'object' && !Array.isArray(valid) ? { ...valid, padding: '' } : { value: valid, padding: '' };
    const length = Math.max(0, size - json(padded).length);
    return json({ ...padded, padding: 'a'.repeat(length) });
  });
}

function bodyShapes(op: Operation, ctx: FuzzContext, schema: NonNullable<Operation['body']>): fc.Arbitrary<Shape>[] {
  const valid = validBody(schema, ctx);
  const base = fc.record({ path: pathValues(op, ctx).map((v) => pathWith(op, v)), query: validQuery(op, ctx).map(queryOf) });
  const withBody = (input: InputClass, body: fc.Arbitrary<Buffer | undefined>, contentType: fc.Arbitrary<string | undefined> = fc.constant('application/json')) =>
    fc.tuple(base, body, contentType).map<Shape>(([b, bytes, ct]) => ({ input, ...b, ...(bytes ? { body: bytes } : {}), ...(ct !== undefined ? { contentType: ct } : {}) }));
  const mutation = (m: Mutation) => withBody(m, valid.chain((v) => mutated(v, m, hugeInBody(ctx))).map(json));
  return [
    withBody('valid', valid.map(json)),
    mutation('wrong-type'),
    mutation('odd-string'),
    mutation('unknown-field'),
    mutation('missing-field'),
    withBody('malformed-json', fc.oneof(fc.constantFrom(...MALFORMED_JSON), fc.tuple(valid, fc.nat()).map(([v, n]) => { const t = JSON.stringify(v) ?? ''; return t.slice(0, n % Math.max(1, t.length)); })).map((t) => Buffer.from(t, 'utf8'))),
    withBody('wrong-content-type', valid.map(json), fc.oneof(fc.constantFrom(...WRONG_CONTENT_TYPES), fc.constant(undefined))),
    withBody('no-body', fc.constant(undefined), fc.constantFrom('application/json', undefined)),
    withBody('empty-body', fc.constant(Buffer.alloc(0))),
    withBody('invalid-utf8', valid.map(invalidUtf8)),
    // Invalid text appended to every free-text field of a valid body, sent twice: the retry
    // meets what the first request stored.
    fc.tuple(base, exampleBody(schema, ctx), fc.constantFrom(...INVALID_TEXT)).map<Shape>(([b, v, odd]) => ({
      input: 'odd-text-everywhere',
      twice: true,
      ...b,
      body: json(withFreeText(v, schema, (text) => `${text}${odd}`)),
      contentType: 'application/json',
    })),
  ];
}

function queryShapes(op: Operation, ctx: FuzzContext): fc.Arbitrary<Shape>[] {
  const path = pathValues(op, ctx).map((v) => pathWith(op, v));
  const q = validQuery(op, ctx);
  const shape = (input: InputClass, query: fc.Arbitrary<string>) => fc.tuple(path, query).map<Shape>(([p, qs]) => ({ input, path: p, query: qs }));
  const shapes = [shape('valid', q.map(queryOf)), shape('odd-query', oddQuery(op))];
  if (op.queryParams.length > 0) {
    shapes.push(
      shape('wrong-type', fc.tuple(q, fc.constantFrom(...op.queryParams.map((p) => p.name)), fc.constantFrom('abc', '[]', '{}', 'true', '-1', '1.5')).map(([v, k, bad]) => queryOf({ ...v, [k]: bad }))),
      shape('odd-string', fc.tuple(q, fc.constantFrom(...op.queryParams.map((p) => p.name)), oddString).map(([v, k, odd]) => queryOf({ ...v, [k]: odd }))),
      shape('unknown-field', fc.tuple(q, fc.constantFrom('extra', '__proto__', 'constructor', 'resultCode'), oddString).map(([v, k, odd]) => queryOf({ ...v, [k]: odd }))),
      shape('missing-field', q.map((v) => queryOf(Object.fromEntries(Object.entries(v).slice(1))))),
    );
  }
  if (!op.body) shapes.push(fc.tuple(path, q, fc.jsonValue({ maxDepth: 2 })).map<Shape>(([p, qs, v]) => ({ input: 'unexpected-body', path: p, query: queryOf(qs), body: json(v), contentType: 'application/json' })));
  return shapes;
}

/** Inputs that go to megabytes; drawn rarely so the suite keeps its time. */
function hugeShapes(op: Operation, ctx: FuzzContext): fc.Arbitrary<Shape>[] {
  const path = pathValues(op, ctx).map((v) => pathWith(op, v));
  const shapes: fc.Arbitrary<Shape>[] = [
    // Beyond Node's 16 KiB header limit, and a long one below it.
    fc.tuple(path, fc.integer({ min: 17 * 1024, max: 64 * 1024 })).map<Shape>(([p, n]) => ({ input: 'huge-query', path: p, query: `?${op.queryParams[0]?.name ?? 'q'}=${'1'.repeat(n)}` })),
    fc.tuple(path, fc.integer({ min: 1024, max: 14 * 1024 }), oddString).map<Shape>(([p, n, odd]) => ({ input: 'huge-query', path: p, query: `?${op.queryParams[0]?.name ?? 'q'}=${encode(odd.repeat(Math.ceil(n / Math.max(1, odd.length * 9))))}` })),
  ];
  if (op.body) {
    const valid = validBody(op.body, ctx);
    shapes.push(
      fc.tuple(path, valid.chain((v) => mutated(v, 'huge-string', hugeInBody(ctx)))).map<Shape>(([p, v]) => ({ input: 'huge-string', path: p, query: '', body: json(v), contentType: 'application/json' })),
      fc.tuple(path, valid.chain((v) => oversize(v, ctx))).map<Shape>(([p, body]) => ({ input: 'oversize-body', path: p, query: '', body, contentType: 'application/json' })),
    );
  } else if (op.queryParams.length > 0) {
    shapes.push(fc.tuple(path, hugeString(256 * KIB, 1024 * KIB)).map<Shape>(([p, s]) => ({ input: 'huge-string', path: p, query: `?${op.queryParams[0]!.name}=${encode(s.slice(0, 200_000))}` })));
  }
  return shapes;
}

function oddPathShape(op: Operation, ctx: FuzzContext): fc.Arbitrary<Shape> {
  const names = op.pathParams.map((p) => p.name);
  return fc.tuple(pathValues(op, ctx), fc.constantFrom(...names), fc.constantFrom(...ODD_SEGMENTS)).map<Shape>(([values, name, odd]) => ({
    input: 'odd-path',
    path: pathWith(op, { ...values, [name]: odd }),
    query: '',
    ...(op.body ? { body: json({}), contentType: 'application/json' } : {}),
  }));
}

export function requestArbitrary(op: Operation, ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const common = op.body ? bodyShapes(op, ctx, op.body) : queryShapes(op, ctx);
  if (op.body) common.push(fc.tuple(pathValues(op, ctx), oddQuery(op)).map<Shape>(([v, q]) => ({ input: 'odd-query', path: pathWith(op, v), query: q, body: json({}), contentType: 'application/json' })));
  const weighted: fc.WeightedArbitrary<Shape>[] = [
    ...common.map((arbitrary, i) => ({ arbitrary, weight: i === 0 ? 8 : 2 })),
    ...hugeShapes(op, ctx).map((arbitrary) => ({ arbitrary, weight: 1 })),
    ...(op.pathParams.length > 0 ? [{ arbitrary: oddPathShape(op, ctx), weight: 3 }] : []),
  ];
  return fc.tuple(authArbitrary(op, ctx), fc.oneof(...weighted), fc.integer({ min: 1, max: 4 })).map(([a, s, n]) => ({
    auth: a.auth,
    times: s.twice || n === 4 ? 2 : 1,
    input: s.input,
    ...(a.caller ? { caller: a.caller } : {}),
    method: op.method,
    path: `${s.path}${s.query}`,
    headers: { ...a.headers, ...(s.contentType !== undefined ? { 'Content-Type': s.contentType } : {}) },
    ...(s.body ? { body: s.body } : {}),
  }));
}
