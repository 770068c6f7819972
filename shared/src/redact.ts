/**
 * pino options of every process (cloud, agent, demo): logs carry no phone numbers, e-mails,
 * keypad / pick-up / access codes, API keys or passwords, and stay readable for an operator.
 *
 * - Fields are redacted by NAME at any depth (SECRET_FIELDS): `[redacted]`.
 * - Fields that name identifiers (`orderId`, `externalId`, `barcode`, `locker`...) are kept as
 *   they are: their digit runs are ids, not codes.
 * - Any other string, the message and error texts are free text: scrubbed by the linear scanner
 *   of scrub-text.ts (it may quote an e-mail or a phone from a request).
 * - Requests, replies and errors (`req`, `res`, `err`) go through serializers that pick the
 *   fields an operator needs and never headers or bodies.
 * Every string is cut to MAX_LOGGED_CHARS; objects are walked to a bounded depth and arrays to a
 * bounded length, and nothing is copied when nothing changes.
 */
import type { LevelWithSilentOrString, LoggerOptions } from 'pino';
import { scrubText, truncateForLog } from './scrub-text.js';

export { MAX_LOGGED_CHARS, scrubText, truncateForLog } from './scrub-text.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A log level setting (LOG_LEVEL) read by an entry point: the fallback when unset, an error naming the setting when wrong. */
export function parseLogLevel(value: string | undefined, fallback: LogLevel, setting = 'LOG_LEVEL'): LogLevel {
  if (value === undefined || value === '') return fallback;
  const level = LOG_LEVELS.find((l) => l === value);
  if (!level) throw new Error(`${setting}: expected one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(truncateForLog(value))}`);
  return level;
}

const REDACTED = '[redacted]';
const MAX_DEPTH = 6;
const MAX_ARRAY_ITEMS = 100;

/** Personal data and credentials, in camelCase; other spellings (snake_case, kebab-case, Pascal, Header-Case, UPPER_CASE, lower case) are derived. */
const SECRET_FIELDS = [
  'phone', 'phones', 'email', 'emails', 'inn', 'notification',
  'accessCode', 'postamatAccessCode', 'pickupCode', 'courierCode', 'customerCode', 'codeCustomer', 'codeCourier', 'intercomCode',
  'password', 'receiverPassword', 'secret', 'hmacSecret', 'token', 'accessToken',
  'apiKey', 'serviceApiKey', 'partnerApiKey', 'operatorApiKey', 'xServiceApiKey', 'xOperatorApiKey',
  'authorization', 'cookie', 'key', 'keys',
];

function spellings(camel: string): string[] {
  const words = camel.replace(/([A-Z])/g, ' $1').toLowerCase().split(' ');
  const capitalised = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return [camel, words.join(''), words.join('_'), words.join('-'), capitalised.join(''), capitalised.join('-'), words.join('_').toUpperCase()];
}

const SECRET_KEYS = new Set(SECRET_FIELDS.flatMap(spellings));
const BINDING_PATHS = [...SECRET_KEYS].map((k) => (/^[A-Za-z_]\w*$/.test(k) ? k : `["${k}"]`));

/** Field names whose values are identifiers besides `id`, `*Id`, `*Ids`, `*_id`, `*ID`. */
const ID_FIELDS = new Set(['order', 'orders', 'locker', 'lockers', 'cell', 'cells', 'barcode', 'barcodes', 'marketplace', 'partner', 'topic', 'username']);

function isIdField(key: string): boolean {
  return key === 'id' || key.endsWith('Id') || key.endsWith('Ids') || key.endsWith('_id') || key.endsWith('ID') || ID_FIELDS.has(key);
}

/** Fields the serializers below render; the walk leaves them to them. */
const SERIALIZED_FIELDS = new Set(['req', 'res', 'err']);

function scrubString(value: string, isId: boolean): string {
  return isId ? truncateForLog(value) : scrubText(value);
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The fields of an object, scrubbed; the same object when nothing changed. */
function scrubFields(value: Record<string, unknown>, depth: number, top: boolean): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const field = value[key];
    let next: unknown;
    if (SECRET_KEYS.has(key)) next = field === undefined || field === null ? field : REDACTED;
    else if (top && SERIALIZED_FIELDS.has(key)) next = field;
    else next = scrubValue(field, depth - 1, isIdField(key));
    if (next !== field) {
      out ??= { ...value };
      out[key] = next;
    }
  }
  return out ?? value;
}

function scrubArray(value: unknown[], depth: number, isId: boolean): unknown[] {
  let out: unknown[] | undefined;
  const kept = Math.min(value.length, MAX_ARRAY_ITEMS);
  for (let i = 0; i < kept; i++) {
    const next = scrubValue(value[i], depth, isId);
    if (next !== value[i]) {
      out ??= value.slice(0, kept);
      out[i] = next;
    }
  }
  if (value.length > kept) {
    out ??= value.slice(0, kept);
    out.push(`[${value.length - kept} more]`);
  }
  return out ?? value;
}

function scrubValue(value: unknown, depth: number, isId: boolean): unknown {
  if (typeof value === 'string') return scrubString(value, isId);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return serializeError(value, 1);
  if (depth <= 0) return '[nested too deep]';
  if (Array.isArray(value)) return scrubArray(value, depth, isId);
  // Dates, Buffers, URLs: JSON gives their own text, which carries no free text.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  // Other class instances are logged as their own enumerable fields, as JSON.stringify would.
  const fields = isPlainObject(value) ? (value as Record<string, unknown>) : { ...value };
  return scrubFields(fields, depth, false);
}

/** An error as type, scrubbed message and stack, diagnostic code (ECONNREFUSED) and status, and its cause. */
function serializeError(err: Error, causes: number): Record<string, unknown> {
  const out: Record<string, unknown> = { type: err.name, message: scrubText(err.message) };
  const { code, statusCode } = err as { code?: unknown; statusCode?: unknown };
  if (typeof code === 'string') out.code = scrubText(code);
  else if (typeof code === 'number') out.code = code;
  if (typeof statusCode === 'number') out.statusCode = statusCode;
  if (err.stack) out.stack = scrubText(err.stack);
  if (causes > 0 && err.cause instanceof Error) out.cause = serializeError(err.cause, causes - 1);
  return out;
}

/** Path of a request URL: the query string may carry anything and is never logged. */
function pathOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  const q = url.indexOf('?');
  return scrubText(q >= 0 ? url.slice(0, q) : url);
}

interface RequestLike {
  method?: unknown;
  url?: unknown;
  routeOptions?: { url?: unknown };
}

/** A request (Fastify's or Node's) as method, route template and path; never headers or body. */
function serializeRequest(req: unknown): unknown {
  if (req === null || typeof req !== 'object') return req;
  const r = req as RequestLike;
  const route = r.routeOptions?.url;
  return {
    method: typeof r.method === 'string' ? truncateForLog(r.method) : undefined,
    route: typeof route === 'string' ? route : undefined,
    url: pathOf(r.url),
  };
}

/** A reply as its status code; never headers or body. */
function serializeReply(res: unknown): unknown {
  if (res === null || typeof res !== 'object') return res;
  const { statusCode } = res as { statusCode?: unknown };
  return { statusCode: typeof statusCode === 'number' ? statusCode : undefined };
}

/** The error of a log call without a message: pino would take its unscrubbed message as the message. */
function errorOf(first: unknown): Error | undefined {
  if (first instanceof Error) return first;
  if (first !== null && typeof first === 'object') {
    const err = (first as { err?: unknown }).err;
    if (err instanceof Error) return err;
  }
  return undefined;
}

/**
 * pino options shared by every process. The level comes from the caller's settings (the entry
 * points read LOG_LEVEL); shared code reads no environment.
 */
export function loggerOptions(name: string, level: LevelWithSilentOrString): LoggerOptions {
  return {
    name,
    level,
    formatters: {
      log: (object) => scrubFields(object, MAX_DEPTH, true),
    },
    // The fields of child loggers (`{ part }`, Fastify's `{ reqId }`) bypass the formatter above;
    // pino's own redaction catches a secret named there.
    redact: { paths: BINDING_PATHS, censor: REDACTED },
    hooks: {
      logMethod(args, method) {
        const list = args as unknown[];
        let hasMessage = false;
        const scrubbed = list.map((a) => {
          if (typeof a !== 'string') return a;
          hasMessage = true;
          return scrubText(a);
        });
        if (!hasMessage) {
          const err = errorOf(list[0]);
          if (err) scrubbed.push(scrubText(err.message));
        }
        method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
    serializers: {
      err: (err: unknown) => (err instanceof Error ? serializeError(err, 1) : scrubValue(err, MAX_DEPTH, false)),
      req: serializeRequest,
      res: serializeReply,
    },
  };
}
