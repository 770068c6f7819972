import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, envOverrides, loadAgentConfig, parseAgentConfig } from '../../agent/src/config.js';

const minimal = { lockerId: 'L-1', buses: [{ path: 'tcp://127.0.0.1:4001', family: 'kerong-cu48', boards: [{ address: 0 }] }] };

describe('agent config', () => {
  it('fills defaults and derives environment overrides from the schema', () => {
    const names = envOverrides().map((o) => o.env);
    expect(names).toEqual(expect.arrayContaining(['AGENT_LOCKER_ID', 'AGENT_MQTT_URL', 'AGENT_MQTT_PASSWORD', 'AGENT_DB_PATH', 'AGENT_SCREEN_PORT', 'AGENT_KEYPAD_MAX_DELAY_MS']));
    const c = parseAgentConfig(minimal, {
      AGENT_LOCKER_ID: 'L-2',
      AGENT_MQTT_URL: 'mqtt://broker:1883',
      AGENT_MQTT_PASSWORD: 'secret',
      AGENT_SCREEN_PORT: '9000',
      AGENT_SCREEN_LANGUAGES: 'en',
      AGENT_SCREEN_DEFAULT_LANGUAGE: 'en',
    });
    expect(c).toMatchObject({
      lockerId: 'L-2',
      mqtt: { url: 'mqtt://broker:1883', password: 'secret' },
      dbPath: 'data/agent.sqlite',
      screen: { port: 9000, languages: ['en'], defaultLanguage: 'en' },
      keypad: { maxDelayMs: 900_000 },
    });
    expect(c.buses[0]).toMatchObject({ name: 'main', frameTimeoutMs: 300 });
  });

  it('refuses a bad config naming every bad field and where it came from', () => {
    const bad = { ...minimal, buses: [{ ...minimal.buses[0], boards: [{ address: 12 }] }], screen: { defaultLanguage: 'de' } };
    let err: unknown;
    try {
      parseAgentConfig(bad, { AGENT_DOORS_POLL_MS: 'often' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain('buses.0.boards.0.address: kerong-cu48 board addresses are 0-9');
    expect(msg).toContain('screen.defaultLanguage');
    expect(msg).toContain('doors.pollMs (from AGENT_DOORS_POLL_MS)');
    expect(() => parseAgentConfig({ ...minimal, lockerId: '' })).toThrow(/lockerId/);
  });

  it('reads the file named by --config or AGENT_CONFIG', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-config-'));
    try {
      const path = join(dir, 'agent.json');
      writeFileSync(path, JSON.stringify(minimal));
      expect(loadAgentConfig(['--config', path], {}).lockerId).toBe('L-1');
      expect(loadAgentConfig([], { AGENT_CONFIG: path }).lockerId).toBe('L-1');
      expect(() => loadAgentConfig([], {})).toThrow(ConfigError);
      writeFileSync(path, '{ not json');
      expect(() => loadAgentConfig(['--config', path], {})).toThrow(/cannot read config/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
