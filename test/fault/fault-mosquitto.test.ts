/**
 * The fault-injection suite on Mosquitto (docs/testing.md): a private broker started from
 * deploy/mosquitto's config on a free port, so that its restart is the suite's own. Runs where
 * MQTT_URL is set (CI sets it), as the other Mosquitto suites do.
 */
import { describe, expect, it } from 'vitest';
import { requires } from '../helpers/requirements.js';
import { runFaultSuite } from './fault-run.js';

describe.runIf(requires('mqtt-url', 'mosquitto'))('fault injection (Mosquitto)', () => {
  it('keeps every effect exactly once and in order through outages and crashes', { timeout: 600_000 }, async () => {
    const report = await runFaultSuite('mosquitto');
    expect(report.failures).toEqual([]);
    expect(report.result?.counts.events).toBeGreaterThan(0);
  });
});
