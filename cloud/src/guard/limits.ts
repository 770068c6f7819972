/**
 * The limits against floods and guessing, with their defaults: one place for both. The fleet file
 * may set them per marketplace and per partner (`rateLimits`); what it leaves out takes the
 * default below. Reasons for the numbers: docs/decisions.md, "Rate limits".
 */
import { z } from 'zod';

const seconds = z.int().min(1).max(86_400);

export const requestLimitSchema = z.strictObject({
  max: z.int().min(1).max(1_000_000).describe('requests allowed per window and key'),
  windowSeconds: seconds.describe('length of the fixed window, seconds'),
});
export type RequestLimit = z.infer<typeof requestLimitSchema>;

export const guessLimitSchema = z.strictObject({
  maxFailures: z.int().min(1).max(100_000).describe('wrong codes in one window that lock the path'),
  windowSeconds: seconds.describe('length of the fixed window the failures are counted in, seconds'),
  lockSeconds: seconds.describe('how long the path stays locked, seconds'),
});
export type GuessLimit = z.infer<typeof guessLimitSchema>;

/** Per API key: a few hundred requests a second on average, bursts of a window's worth. */
export const DEFAULT_REQUEST_LIMIT: RequestLimit = { max: 3000, windowSeconds: 10 };
/** Per client address, for requests without a known key (health checks are not counted). */
export const ANONYMOUS_REQUEST_LIMIT: RequestLimit = { max: 600, windowSeconds: 60 };
/** Wrong courier codes / courier ids for one parcel barcode of one marketplace. */
export const DEFAULT_PARCEL_GUESS_LIMIT: GuessLimit = { maxFailures: 10, windowSeconds: 900, lockSeconds: 900 };
/** Wrong operator keys at console sign-in (POST /operator/session), per client address. */
export const SIGN_IN_GUESS_LIMIT: GuessLimit = { maxFailures: 10, windowSeconds: 900, lockSeconds: 900 };
/** Wrong courier codes / courier ids over all barcodes of one marketplace. */
export const DEFAULT_KEY_GUESS_LIMIT: GuessLimit = { maxFailures: 50, windowSeconds: 3600, lockSeconds: 3600 };

export const partnerRateLimitsSchema = z
  .strictObject({
    requests: requestLimitSchema.optional().describe(`default ${JSON.stringify(DEFAULT_REQUEST_LIMIT)}`),
  })
  .describe('request limit of the partner\'s keys (429 beyond it)');
export type PartnerRateLimits = z.infer<typeof partnerRateLimitsSchema>;

export const marketplaceRateLimitsSchema = z
  .strictObject({
    requests: requestLimitSchema.optional().describe(`default ${JSON.stringify(DEFAULT_REQUEST_LIMIT)}`),
    codeGuessing: z
      .strictObject({
        perParcel: guessLimitSchema.optional().describe(`default ${JSON.stringify(DEFAULT_PARCEL_GUESS_LIMIT)}`),
        perKey: guessLimitSchema.optional().describe(`default ${JSON.stringify(DEFAULT_KEY_GUESS_LIMIT)}`),
      })
      .optional()
      .describe('lockout of order/detail after wrong courier codes or courier ids'),
  })
  .describe('request limit and guess lockout of the marketplace\'s keys (429 beyond them)');
export type MarketplaceRateLimits = z.infer<typeof marketplaceRateLimitsSchema>;

/** The stored JSON (marketplaces/partners.rate_limits) back to limits; anything unreadable is the default. */
function storedLimits<T>(schema: z.ZodType<T>, json: string | null): T | undefined {
  if (json === null) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function requestLimitOf(kind: 'marketplace' | 'partner', json: string | null): RequestLimit {
  const limits = storedLimits<{ requests?: RequestLimit | undefined }>(kind === 'marketplace' ? marketplaceRateLimitsSchema : partnerRateLimitsSchema, json);
  return limits?.requests ?? DEFAULT_REQUEST_LIMIT;
}

export interface GuessLimits {
  perParcel: GuessLimit;
  perKey: GuessLimit;
}

export function guessLimitsOf(json: string | null): GuessLimits {
  const guessing = storedLimits(marketplaceRateLimitsSchema, json)?.codeGuessing;
  return { perParcel: guessing?.perParcel ?? DEFAULT_PARCEL_GUESS_LIMIT, perKey: guessing?.perKey ?? DEFAULT_KEY_GUESS_LIMIT };
}
