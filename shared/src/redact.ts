/**
 * Logs carry no phone numbers, e-mails or codes. Known fields are removed by pino's `redact`
 * paths; free text (messages, error texts) is scrubbed as well, because an error message may
 * quote an e-mail or a phone from a request.
 */
import type { LoggerOptions } from 'pino';

// `code` alone is not listed: errors carry diagnostic codes (ECONNREFUSED); a keypad code under any
// field name is caught by the free-text scrub of every string value below.
const SECRET_FIELDS = [
  'phone', 'phones', 'email', 'emails', 'inn', 'accessCode', 'access_code', 'pickupCode',
  'postamatAccessCode', 'password', 'apiKey', 'authorization', 'notification', 'hmacSecret',
];

export const REDACT_PATHS: string[] = [
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]),
  'req.headers.authorization',
  'req.headers["x-service-api-key"]',
  'req.headers["partner-api-key"]',
  'req.headers["x-operator-api-key"]',
];

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
/** Russian numbers written +7 / 8 with optional separators, and any +<10-14 digits>; not digit runs inside paths or ids. */
const PHONE = /(?<![\w/.-])(?:(?:\+7|8)[\s(-]*\d{3}[\s)-]*\d{3}[\s-]*\d{2}[\s-]*\d{2}|\+\d{10,14})(?!\d)/g;
/** Six to eight digits standing alone: the length of pick-up and access codes. */
const CODE = /(?<![\d.:-])\d{6,8}(?![\d.:-])/g;

export function scrubText(text: string): string {
  return text.replace(EMAIL, '[email]').replace(PHONE, '[phone]').replace(CODE, '[code]');
}

/** Scrubs every string inside a log object (bounded depth; other values pass through). */
function scrubDeep(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (depth <= 0 || value === null || typeof value !== 'object' || value instanceof Error) return value;
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, depth - 1));
  // Only plain objects: a framework's request or reply would lead to the raw request body.
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrubDeep(v, depth - 1);
  return out;
}

/** pino options shared by every process: field redaction plus free-text scrubbing. */
export function loggerOptions(name: string, level = process.env.LOG_LEVEL ?? 'info'): LoggerOptions {
  return {
    name,
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    formatters: {
      log: (object) => scrubDeep(object, 6) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((a: unknown) => (typeof a === 'string' ? scrubText(a) : a));
        method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
    serializers: {
      err: (err: unknown) => {
        if (!(err instanceof Error)) return err;
        return { type: err.name, message: scrubText(err.message), stack: err.stack ? scrubText(err.stack) : undefined };
      },
    },
  };
}
