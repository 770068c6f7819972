/**
 * The replay check compares a create's hash with the one stored with its order: the one-pass
 * canonical JSON (orders/request-hash.ts) must give the text the earlier sorted copy gave, or
 * replays of orders created before would be refused as conflicts. And the calendar-date check
 * without luxon judges every date as luxon does.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { isCalendarDate } from '../../cloud/src/lockers/locker-time.js';
import { canonicalJson } from '../../cloud/src/orders/request-hash.js';

/** How the canonical form was built before: a copy with sorted keys, then JSON.stringify. */
function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, sortedCopy(v)]),
    );
  }
  return value;
}

describe('the request hash', () => {
  it('writes the text the sorted copy gave, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(JSON.stringify(sortedCopy(value)));
      }),
      { numRuns: 3_000 },
    );
    expect(canonicalJson({ b: 1, a: [{ d: undefined, c: '2' }], 10: 'x', 2: 'y' })).toBe('{"2":"y","10":"x","a":[{"c":"2"}],"b":1}');
  });
});

describe('the calendar-date check', () => {
  it('agrees with luxon on every YYYY-MM-DD text', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), (y, m, d) => {
        const text = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
        expect(isCalendarDate(text)).toBe(DateTime.fromISO(text, { zone: 'UTC' }).isValid);
      }),
      { numRuns: 5_000 },
    );
    for (const text of ['2024-02-29', '2100-02-29', '2000-02-29', '2024-13-01', '2024-1-01', ' 2024-01-01']) {
      expect(isCalendarDate(text)).toBe(DateTime.fromISO(text, { zone: 'UTC' }).isValid && /^\d{4}-\d{2}-\d{2}$/.test(text));
    }
  });
});
