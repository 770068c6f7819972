/**
 * The fault-injection suite on the embedded broker (docs/testing.md): lockers and the cloud
 * through a long cut, crashes between commit and publish, a broker restart, duplicated and
 * reordered packets; then nothing lost, duplicated or out of order, and everyone agrees.
 */
import { describe, expect, it } from 'vitest';
import { runFaultSuite } from './fault-run.js';

describe('fault injection (embedded broker)', () => {
  it('keeps every effect exactly once and in order through outages and crashes', { timeout: 600_000 }, async () => {
    const report = await runFaultSuite('embedded');
    expect(report.failures).toEqual([]);
    expect(report.result?.counts.events).toBeGreaterThan(0);
  });
});
