/**
 * Idempotent creation: a create request is identified by its operation and a canonical form of its
 * validated body (keys sorted, so key order and whitespace do not matter).
 */
import { createHash } from 'node:crypto';

const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;
const isArrayIndex = (key: string): boolean => ARRAY_INDEX.test(key) && Number(key) < 2 ** 32 - 1;

/**
 * JavaScript's own order of an object's keys, given them sorted: array indexes first, by value.
 * (A sorted copy built as an object, as the hashes already stored were made, comes out so.)
 */
function propertyOrder(sorted: string[]): string[] {
  const indexes = sorted.filter(isArrayIndex);
  if (indexes.length === 0) return sorted;
  return [...indexes.sort((a, b) => Number(a) - Number(b)), ...sorted.filter((k) => !isArrayIndex(k))];
}

/**
 * JSON with every object's keys sorted (by UTF-16 code units) and undefined members left out,
 * written in one pass: the text JSON.stringify gives for such a sorted copy, which is what the
 * hashes already stored were made of.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const members: string[] = [];
    for (const key of propertyOrder(Object.keys(object).sort())) {
      if (object[key] !== undefined) members.push(`${JSON.stringify(key)}:${canonicalJson(object[key])}`);
    }
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

export function requestHash(operation: string, body: unknown): string {
  return createHash('sha256').update(`[${JSON.stringify(operation)},${canonicalJson(body)}]`).digest('hex');
}
