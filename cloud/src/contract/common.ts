/**
 * Building blocks of the API contract (docs/api.md). The request schemas validate every
 * inbound body; the response schemas serialise answers; both feed the OpenAPI document at /docs.
 */
import { z } from 'zod';
import { ResultCode } from '../../../shared/src/enums.js';
import { MAX_IDEMPOTENCY_HEADER_LENGTH } from '../idempotency/idempotency-key.js';
import { isCalendarDate } from '../lockers/locker-time.js';
import { isoDateSchema } from '../lockers/profile.js';
import { ISSUE_TEXTS } from './issue-texts.js';

export { isoDateSchema };

export const INT32_MAX = 2_147_483_647;
export const int32 = z.int().min(-INT32_MAX - 1).max(INT32_MAX);
export const positiveInt32 = z.int().min(1).max(INT32_MAX);
/** Money in kopecks (int64 in the spec; JSON numbers are exact up to 2^53). */
export const kopecks = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * Limits the spec leaves open ("not shown"); see docs/decisions.md. Together they bound the
 * largest legitimate request, and BODY_LIMIT_BYTES (config.ts) is set just above that.
 */
export const LIMITS = {
  /** externalId, extId, barcodes, order number, courier and route ids. */
  idLength: 128,
  /** Item names (fiscal receipts print at most 128; twice that leaves room). */
  nameLength: 256,
  /** RFC 5321's longest usable address. */
  emailLength: 254,
  carNumberLength: 20,
  accessCodeLength: 32,
  parcelsPerOrder: 100,
  itemsPerOrder: 100,
  barcodesPerParcel: 10,
  contactsPerOrder: 10,
  lockersPerRoute: 100,
  /** Notification ids per redelivery request of the operator. */
  idsPerRequest: 1000,
} as const;

/**
 * Characters no request string may hold: lone surrogates (not valid Unicode; UTF-8 cannot store
 * them, so the database would keep another text than the one sent) and control characters.
 * Identifiers allow none of the latter; free text allows tab, line feed and carriage return.
 * Single character classes: one linear scan whatever the input.
 */
const NOT_IN_IDENTIFIERS = /[\p{Cs}\p{Cc}]/u;
const NOT_IN_TEXT = /\p{Cs}|(?![\t\n\r])\p{Cc}/u;

/**
 * The one schema every request string starts from. The length check runs first and aborts, so no
 * later check (patterns, trimming, refinements) ever sees more than `max` characters; then the
 * text must be valid Unicode without control characters (code 3 otherwise, as any schema error).
 */
export function requestString(max: number, kind: 'identifier' | 'text' = 'identifier') {
  const forbidden = kind === 'identifier' ? NOT_IN_IDENTIFIERS : NOT_IN_TEXT;
  const message = kind === 'identifier' ? ISSUE_TEXTS.identifierCharacters.en : ISSUE_TEXTS.textCharacters.en;
  return z
    .string()
    .max(max, { abort: true })
    .refine((s) => !forbidden.test(s), { message, abort: true });
}

/** A required identifier: trimmed, not empty (empty externalId is code 3 in the spec). */
export const identifier = requestString(LIMITS.idLength).trim().min(1, ISSUE_TEXTS.notEmpty.en);
/** Free text shown to people (tab and line breaks allowed). */
export const text = (max: number) => requestString(max, 'text');

export const phoneSchema = requestString(12)
  .regex(/^\+7\d{10}$/, ISSUE_TEXTS.phone.en)
  .meta({ example: '+79161234567' });
/** Labels of one or more characters joined by dots after the @: no two quantifiers compete for a character. */
export const emailSchema = requestString(LIMITS.emailLength)
  .trim()
  .regex(/^[^@\s]+@[^@\s.]+(?:\.[^@\s.]+)+$/, ISSUE_TEXTS.email.en)
  .meta({ example: 'client@example.ru' });

/** A calendar date YYYY-MM-DD in a request. */
export const requestDate = requestString(10)
  .refine(isCalendarDate, ISSUE_TEXTS.calendarDate.en)
  .meta({ format: 'date', example: '2030-03-05' });

/** ISO 8601 with the locker's offset. */
export const dateTimeSchema = z.string().meta({ format: 'date-time', example: '2030-03-05T14:00:00+03:00' });

/** Every `resultCode` the API answers; the OpenAPI document describes each (http/openapi/result-codes.ts). */
export const RESULT_CODES = Object.values(ResultCode) as [ResultCode, ...ResultCode[]];

export const errorEnvelopeSchema = z
  .object({ message: z.string(), resultCode: z.literal(RESULT_CODES) })
  .meta({ id: 'ErrorEnvelope', description: 'Error envelope of the spec: resultCode is the stable code, message its text' });

/** Error answers every operation with a body may give (status -> envelope). */
export const errorResponses = {
  400: errorEnvelopeSchema,
  401: errorEnvelopeSchema,
  413: errorEnvelopeSchema,
  429: errorEnvelopeSchema,
  500: errorEnvelopeSchema,
} as const;

/**
 * Query-string booleans: `true` / `false` on the wire. A preprocess (not a string enum) so that
 * the document types the parameter as boolean, which clients serialize as `true` / `false`.
 */
export const queryBoolean = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());

/** Headers of the mutating operations (order create, update, cancel, extension, route sheet). */
export const idempotentRequestHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .max(MAX_IDEMPOTENCY_HEADER_LENGTH)
    .optional()
    .describe(
      'Optional: a key for safe retries (1-255 printable ASCII; a Structured Field String such as "8e03978e" or bare). ' +
        'The same key with the same body replays the first answer (header Idempotent-Replayed: true) and does nothing again; ' +
        'with another body 422 (code 3); while the first request is still running 409 (code 4, Retry-After). Keys are kept 24 hours.',
    ),
});

/** Error answers of the mutating operations: those of every operation, and the Idempotency-Key's two. */
export const idempotentErrorResponses = {
  ...errorResponses,
  409: errorEnvelopeSchema.describe('A request with the same Idempotency-Key is still being processed (code 4, Retry-After)'),
  422: errorEnvelopeSchema.describe('The Idempotency-Key was used for another request (code 3)'),
} as const;
