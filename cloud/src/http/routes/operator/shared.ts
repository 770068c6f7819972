/** What the /operator route groups share: the security schemes, the error answers and the shapes of lists. */
import { z } from 'zod';
import { errorEnvelopeSchema, errorResponses } from '../../../contract/common.js';

/** Either the operator key or the console's session cookie (with X-CSRF-Token on changes). */
export const security: Record<string, string[]>[] = [{ operatorApiKey: [] }, { operatorSession: [] }];

export const operatorErrors = {
  ...errorResponses,
  403: errorEnvelopeSchema.describe('Code 5: a viewer asked for an action, or a session request that changes something lacks its X-CSRF-Token'),
} as const;

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
export const isoTime = z.string().nullable().describe('UTC, ISO 8601');
/** Page size of the lists. */
export const limit = z.coerce.number().int().min(1).max(1000).default(100);
export const rowId = z.coerce.number().int().positive();

/** `page` (1-based) and `pageSize` (at most 200) of the paged views. */
export const paging = {
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
};

/** `{items, total, page, pageSize}` of a paged view. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), total: z.int(), page: z.int(), pageSize: z.int() });
}

/** A short free-text reason of an operator's action (kept in the audit log). */
export const reasonSchema = z.string().trim().min(1).max(500);

/** The operator's free-text note beside an action's reason (kept in the audit log); optional everywhere. */
export const noteSchema = z.string().trim().min(1).max(500).optional().describe("the operator's own words beside the reason (kept in the audit log)");
