/** The link's settings in the agent config, and the reconnect back-off they drive. */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseAgentConfig } from '../../agent/src/config.js';
import { Backoff } from '../../agent/src/sync/backoff.js';

const base = { lockerId: '1001', buses: [{ name: 'main', path: 'tcp://127.0.0.1:1', family: 'kerong-cu48', boards: [{ address: 0 }] }] };

describe('locker link settings', () => {
  it('fills the defaults and takes environment overrides', () => {
    const c = parseAgentConfig({ ...base, mqtt: { url: 'mqtt://broker:1883', password: 'pw' } }, { AGENT_MQTT_RESEND_AFTER_MS: '5000' });
    expect(c.mqtt).toEqual({
      url: 'mqtt://broker:1883',
      password: 'pw',
      keepaliveSec: 30,
      reconnectMinMs: 1_000,
      reconnectMaxMs: 60_000,
      resendAfterMs: 5_000,
      batchSize: 50,
      windowSize: 200,
      healthReportSeconds: 60,
      maxMessageBytes: 16 * 1_048_576,
    });
  });

  it('refuses a longest reconnect wait below the first one', () => {
    expect(() => parseAgentConfig({ ...base, mqtt: { url: 'mqtt://broker', password: 'pw', reconnectMinMs: 500, reconnectMaxMs: 100 } })).toThrow(ConfigError);
  });

  it('doubles the reconnect wait up to the longest, each between half and all of the step, and starts over', () => {
    const lowest = new Backoff(100, 1_000, () => 0);
    expect(Array.from({ length: 6 }, () => lowest.next())).toEqual([50, 100, 200, 400, 500, 500]);
    const highest = new Backoff(100, 1_000, () => 1);
    expect(Array.from({ length: 6 }, () => highest.next())).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    highest.reset();
    expect(highest.next()).toBe(100);
  });
});
