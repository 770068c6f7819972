/**
 * The breaking changes between a published OpenAPI document and the current one. Every rule of
 * what breaks a v4 client is here (docs/compatibility.md lists them in words).
 *
 * A request is what the client sends (parameters, request bodies): the current document must
 * accept everything the published one accepted. An answer is what the client reads (response
 * bodies and headers, and the notification bodies the service sends, which a receiver reads
 * like an answer): the current document must promise everything the published one promised and
 * send nothing of a type the client was not told of. Descriptions, summaries, examples, tags,
 * servers and other annotations are never compared.
 */

export type Direction = 'request' | 'answer';

export interface BreakingChange {
  /** Names the change is declared under in the changelog: the operationId, `METHOD /path`, or `webhook <name>`. */
  names: string[];
  /** The rule broken, one of RULES' keys. */
  rule: Rule;
  /** Where in the published document, as a readable path. */
  where: string;
}

/** Each rule, as the checker's output and docs/compatibility.md state it. */
export const RULES = {
  'operation-removed': 'an operation (path and method) or a notification was removed',
  'operation-id-changed': "an operation's operationId changed (generated clients name their methods by it)",
  'security-changed': "an operation's key (security scheme) changed",
  'parameter-removed': 'a request parameter was removed',
  'parameter-required': 'a request parameter became required, or a new one is required',
  'body-required': 'a request body became required',
  'media-type-removed': 'a request or answer media type was removed',
  'success-status-changed': 'a success (2xx) status of an operation was removed or added',
  'header-removed': 'an answer header was removed',
  'type-changed': 'a type no longer accepts what a request sent, or an answer may carry a type the client was not told of',
  'field-removed': 'a field was removed from a request or an answer',
  'field-required': 'a request field became required, or a new one is required',
  'field-optional': 'an answer field that was always present became optional',
  'enum-value-removed': 'a value was removed from an enum (request or answer)',
  'enum-added': 'a request field that took any value now takes only an enum',
  'variant-changed': 'a variant (anyOf/oneOf) was removed from a request or added to an answer',
  'bound-tightened': 'a request bound (maxLength, maxItems, maximum, minLength, minItems, minimum) is tighter',
  'closed-object': 'a request object that took other fields no longer does (additionalProperties: false)',
} as const;
export type Rule = keyof typeof RULES;

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asObject = (v: unknown): Json => (isObject(v) ? v : {});
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Follows a local `$ref` (`#/components/...`) within `doc`. */
function resolve(doc: Json, node: unknown, seen = new Set<string>()): Json {
  let n = asObject(node);
  while (typeof n.$ref === 'string' && n.$ref.startsWith('#/') && !seen.has(n.$ref)) {
    seen.add(n.$ref);
    n = asObject(n.$ref.slice(2).split('/').reduce<unknown>((at, key) => asObject(at)[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc));
  }
  return n;
}

/** The JSON types a schema allows; undefined when it names none (any type). */
function typesOf(s: Json): Set<string> | undefined {
  const t = s.type;
  const types = typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : undefined;
  if (!types) return undefined;
  if (s.nullable === true) types.push('null');
  return new Set(types);
}

/** Whether every value of the types `from` is a value of the types `to` (an integer is a number). */
function typesWithin(from: Set<string> | undefined, to: Set<string> | undefined): boolean {
  if (to === undefined) return true;
  if (from === undefined) return false;
  return [...from].every((t) => to.has(t) || (t === 'integer' && to.has('number')));
}

function enumOf(s: Json): unknown[] | undefined {
  if (Array.isArray(s.enum)) return s.enum as unknown[];
  return 'const' in s ? [s.const] : undefined;
}

const LOWER_BOUNDS = ['minLength', 'minItems', 'minimum', 'exclusiveMinimum', 'minProperties'] as const;
const UPPER_BOUNDS = ['maxLength', 'maxItems', 'maximum', 'exclusiveMaximum', 'maxProperties'] as const;

class Comparison {
  readonly changes: BreakingChange[] = [];
  /** Schema pairs already compared per operation, by their `$ref`s: recursive schemas end. */
  private readonly compared = new Set<string>();

  constructor(
    private readonly before: Json,
    private readonly after: Json,
  ) {}

  add(names: string[], rule: Rule, where: string): void {
    this.changes.push({ names, rule, where });
  }

  schema(names: string[], oldNode: unknown, newNode: unknown, dir: Direction, where: string): void {
    const oldRef = asObject(oldNode).$ref;
    const newRef = asObject(newNode).$ref;
    if (typeof oldRef === 'string' && typeof newRef === 'string') {
      const pair = `${names[0]} ${dir} ${oldRef} ${newRef}`;
      if (this.compared.has(pair)) return;
      this.compared.add(pair);
    }
    const o = resolve(this.before, oldNode);
    const n = resolve(this.after, newNode);
    const add = (rule: Rule, at = where) => this.add(names, rule, at);

    const [fromTypes, toTypes] = dir === 'request' ? [typesOf(o), typesOf(n)] : [typesOf(n), typesOf(o)];
    if (!typesWithin(fromTypes, toTypes)) add('type-changed');

    const oldEnum = enumOf(o);
    const newEnum = enumOf(n);
    if (oldEnum && newEnum && oldEnum.some((v) => !newEnum.some((w) => JSON.stringify(w) === JSON.stringify(v)))) add('enum-value-removed');
    if (dir === 'request' && !oldEnum && newEnum) add('enum-added');

    if (dir === 'request') {
      for (const k of UPPER_BOUNDS) if (typeof n[k] === 'number' && !(typeof o[k] === 'number' && o[k] <= n[k])) add('bound-tightened', `${where}.${k}`);
      for (const k of LOWER_BOUNDS) if (typeof n[k] === 'number' && !(typeof o[k] === 'number' && o[k] >= n[k])) add('bound-tightened', `${where}.${k}`);
      if (n.additionalProperties === false && o.additionalProperties !== false && isObject(o.properties)) add('closed-object');
    }

    this.properties(names, o, n, dir, where);
    if (o.items !== undefined && n.items !== undefined) this.schema(names, o.items, n.items, dir, `${where}[]`);
    if (isObject(o.additionalProperties) && isObject(n.additionalProperties)) this.schema(names, o.additionalProperties, n.additionalProperties, dir, `${where}{}`);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) this.variants(names, asArray(o[key]), asArray(n[key]), key, dir, where);
  }

  private properties(names: string[], o: Json, n: Json, dir: Direction, where: string): void {
    const oldProps = asObject(o.properties);
    const newProps = asObject(n.properties);
    const oldRequired = new Set(asArray(o.required));
    const newRequired = new Set(asArray(n.required));
    for (const [name, schema] of Object.entries(oldProps)) {
      const at = `${where}.${name}`;
      if (!(name in newProps)) this.add(names, 'field-removed', at);
      else this.schema(names, schema, newProps[name], dir, at);
    }
    if (dir === 'request') {
      for (const name of newRequired) if (!oldRequired.has(name)) this.add(names, 'field-required', `${where}.${String(name)}`);
    } else {
      for (const name of oldRequired) if (!newRequired.has(name) && typeof name === 'string' && name in newProps) this.add(names, 'field-optional', `${where}.${name}`);
    }
  }

  /** Variants are matched by position; zod keeps their order. */
  private variants(names: string[], o: unknown[], n: unknown[], key: string, dir: Direction, where: string): void {
    for (let i = 0; i < Math.min(o.length, n.length); i++) this.schema(names, o[i], n[i], dir, `${where}.${key}[${i}]`);
    const lost = dir === 'request' ? o.length > n.length : n.length > o.length;
    if (lost && key !== 'allOf') this.add(names, 'variant-changed', `${where}.${key}`);
  }

  content(names: string[], oldContent: unknown, newContent: unknown, dir: Direction, where: string): void {
    const nc = asObject(newContent);
    for (const [type, media] of Object.entries(asObject(oldContent))) {
      if (!(type in nc)) this.add(names, 'media-type-removed', `${where} ${type}`);
      else this.schema(names, asObject(media).schema, asObject(nc[type]).schema, dir, `${where} ${type}`);
    }
  }
}

function parameterKey(p: Json): string {
  const name = String(p.name);
  return `${String(p.in)}:${p.in === 'header' ? name.toLowerCase() : name}`;
}

function securityNames(op: Json): string {
  return JSON.stringify(asArray(op.security).map((r) => Object.keys(asObject(r)).sort()));
}

function compareOperation(c: Comparison, names: string[], before: Json, after: Json, oldOp: Json, newOp: Json, where: string, bodyDir: Direction): void {
  if (oldOp.operationId !== undefined && oldOp.operationId !== newOp.operationId) c.add(names, 'operation-id-changed', where);
  if ('security' in oldOp && securityNames(oldOp) !== securityNames(newOp)) c.add(names, 'security-changed', where);

  const oldParams = new Map(asArray(oldOp.parameters).map((p) => resolve(before, p)).map((p) => [parameterKey(p), p]));
  const newParams = new Map(asArray(newOp.parameters).map((p) => resolve(after, p)).map((p) => [parameterKey(p), p]));
  for (const [key, p] of oldParams) {
    const q = newParams.get(key);
    if (!q) c.add(names, 'parameter-removed', `${where} ${key}`);
    else c.schema(names, p.schema, q.schema, 'request', `${where} ${key}`);
  }
  for (const [key, q] of newParams) if (q.required === true && oldParams.get(key)?.required !== true) c.add(names, 'parameter-required', `${where} ${key}`);

  const oldBody = resolve(before, oldOp.requestBody);
  const newBody = resolve(after, newOp.requestBody);
  if (newBody.required === true && oldBody.required !== true) c.add(names, 'body-required', `${where} body`);
  c.content(names, oldBody.content, newBody.content, bodyDir, `${where} body`);

  // A notification's answer is the receiver's, which the service reads: not the client's contract.
  if (bodyDir === 'answer') return;
  const oldResponses = asObject(oldOp.responses);
  const newResponses = asObject(newOp.responses);
  const success = (r: Json) => Object.keys(r).filter((s) => s.startsWith('2')).sort().join(',');
  if (success(oldResponses) !== success(newResponses)) c.add(names, 'success-status-changed', `${where} responses`);
  for (const [status, response] of Object.entries(oldResponses)) {
    if (!(status in newResponses)) continue;
    const o = resolve(before, response);
    const n = resolve(after, newResponses[status]);
    const newHeaders = new Set(Object.keys(asObject(n.headers)).map((h) => h.toLowerCase()));
    for (const h of Object.keys(asObject(o.headers))) if (!newHeaders.has(h.toLowerCase())) c.add(names, 'header-removed', `${where} ${status} ${h}`);
    c.content(names, o.content, n.content, 'answer', `${where} ${status}`);
  }
}

/** Every breaking change from `before` (the published document) to `after` (the current one). */
export function breakingChanges(before: unknown, after: unknown): BreakingChange[] {
  const b = asObject(before);
  const a = asObject(after);
  const c = new Comparison(b, a);
  const newPaths = asObject(a.paths);
  for (const [path, item] of Object.entries(asObject(b.paths))) {
    for (const method of METHODS) {
      const oldOp = asObject(item)[method];
      if (!isObject(oldOp)) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const names = [where, ...(typeof oldOp.operationId === 'string' ? [oldOp.operationId] : [])];
      const newOp = asObject(newPaths[path])[method];
      if (!isObject(newOp)) c.add(names, 'operation-removed', where);
      else compareOperation(c, names, b, a, oldOp, newOp, where, 'request');
    }
  }
  const newHooks = asObject(a.webhooks);
  for (const [hook, item] of Object.entries(asObject(b.webhooks))) {
    for (const method of METHODS) {
      const oldOp = asObject(item)[method];
      if (!isObject(oldOp)) continue;
      const where = `webhook ${hook}`;
      const names = [where, ...(typeof oldOp.operationId === 'string' ? [oldOp.operationId] : [])];
      const newOp = asObject(newHooks[hook])[method];
      if (!isObject(newOp)) c.add(names, 'operation-removed', where);
      // The service sends the notification: its body is read by the receiver like an answer.
      else compareOperation(c, names, b, a, oldOp, newOp, where, 'answer');
    }
  }
  return c.changes;
}
