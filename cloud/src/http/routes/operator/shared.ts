/** What the /operator route groups share: the security scheme and the shapes of lists. */
import { z } from 'zod';

export const security = [{ operatorApiKey: [] }];

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
export const isoTime = z.string().nullable().describe('UTC, ISO 8601');
/** Page size of the lists. */
export const limit = z.coerce.number().int().min(1).max(1000).default(100);
export const rowId = z.coerce.number().int().positive();
