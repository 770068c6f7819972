/**
 * Building blocks of the API contract (spec/postamat-api.md). The request schemas validate every
 * inbound body; the response schemas serialise answers; both feed the OpenAPI document at /docs.
 */
import { z } from 'zod';
import { isoDateSchema } from '../lockers/profile.js';

export { isoDateSchema };

export const INT32_MAX = 2_147_483_647;
export const int32 = z.int().min(-INT32_MAX - 1).max(INT32_MAX);
export const positiveInt32 = z.int().min(1).max(INT32_MAX);
/** Money in kopecks (int64 in the spec; JSON numbers are exact up to 2^53). */
export const kopecks = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Limits the spec leaves open ("not shown"); see docs/decisions.md. */
export const LIMITS = {
  idLength: 128,
  textLength: 1024,
  parcelsPerOrder: 100,
  itemsPerOrder: 1000,
  barcodesPerParcel: 20,
  contactsPerOrder: 10,
  lockersPerRoute: 100,
} as const;

/** A required identifier: trimmed, not empty (empty externalId is code 3 in the spec). */
export const identifier = z.string().trim().min(1, 'must not be empty').max(LIMITS.idLength);
export const text = z.string().max(LIMITS.textLength);

export const phoneSchema = z.string().regex(/^\+7\d{10}$/, 'expected +7 followed by ten digits').meta({ example: '+79161234567' });
export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .regex(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, 'expected an e-mail address')
  .meta({ example: 'client@example.ru' });

/** ISO 8601 with the locker's offset. */
export const dateTimeSchema = z.string().meta({ format: 'date-time', example: '2025-06-02T14:00:00+03:00' });

export const errorEnvelopeSchema = z
  .object({ message: z.string(), resultCode: z.int() })
  .describe('Error envelope of the spec: resultCode is the stable code, message its text');

/** Error answers every operation may give (status -> envelope). */
export const errorResponses = {
  400: errorEnvelopeSchema,
  401: errorEnvelopeSchema,
  500: errorEnvelopeSchema,
} as const;

/** Query-string booleans: `true` / `false`. */
export const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');
