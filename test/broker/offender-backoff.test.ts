import { describe, expect, it } from 'vitest';
import { MAX_BACKOFF_MS, OffenderBackoff } from '../../cloud/src/broker/offender-backoff.js';

describe('the back-off of a client that keeps sending oversized packets', () => {
  it('doubles with each offence up to its cap, and forgives after an hour without one', () => {
    let now = 0;
    const b = new OffenderBackoff(() => now);
    expect(b.waitFor('7')).toBe(0);
    expect(b.offended('7')).toBe(1_000);
    expect(b.waitFor('7')).toBe(1_000);
    expect(b.waitFor('8')).toBe(0);
    now += 1_000;
    expect(b.waitFor('7')).toBe(0);
    expect(b.offended('7')).toBe(2_000);
    expect(b.offended('7')).toBe(4_000);
    for (let i = 0; i < 30; i++) b.offended('7');
    expect(b.offended('7')).toBe(MAX_BACKOFF_MS);
    now += 60 * 60_000;
    expect(b.waitFor('7')).toBe(0);
    expect(b.offended('7')).toBe(1_000);
  });
});
