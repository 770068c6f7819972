/**
 * Idempotent creation: a create request is identified by its operation and a canonical form of its
 * validated body (keys sorted, so key order and whitespace do not matter).
 */
import { createHash } from 'node:crypto';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

export function requestHash(operation: string, body: unknown): string {
  return createHash('sha256').update(JSON.stringify([operation, canonical(body)])).digest('hex');
}
