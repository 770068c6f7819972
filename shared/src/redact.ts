/**
 * Logs carry no phone numbers, e-mails or codes. Known fields are removed by pino's `redact`
 * paths; free text (messages, error texts) is scrubbed as well, because an error message may
 * quote an e-mail or a phone from a request.
 */
import type { LoggerOptions } from 'pino';

const SECRET_FIELDS = [
  'phone', 'phones', 'email', 'emails', 'inn', 'code', 'accessCode', 'access_code', 'pickupCode',
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

/** pino options shared by every process: field redaction plus free-text scrubbing. */
export function loggerOptions(name: string, level = process.env.LOG_LEVEL ?? 'info'): LoggerOptions {
  return {
    name,
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
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
