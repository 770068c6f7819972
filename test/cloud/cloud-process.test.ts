import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../cloud/src/config.js';
import { KEYS, testFleet } from './helpers/fleet-fixtures.js';
import { type CloudProcess, runCloudProcess, startCloudProcess } from './helpers/cloud-process.js';

describe('cloud configuration', () => {
  it('takes defaults, environment values and overrides', () => {
    const config = loadConfig({ PORT: '9000', CAPACITY_DAYS: '3', RESERVATION_GRACE_MINUTES: '15' }, { host: '0.0.0.0' });
    expect(config).toMatchObject({ port: 9000, host: '0.0.0.0', capacityDays: 3, reservationGraceMinutes: 15, dayOffsDays: 7, courierCodeLength: 8 });
    expect(config.allocation.defaultDimension).toEqual({ length: 1, width: 1, height: 1 });
  });

  it('refuses bad values naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT \(port\)/);
    expect(() => loadConfig({ COURIER_CODE_LENGTH: '5' })).toThrow(/COURIER_CODE_LENGTH/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => loadConfig({}, { capacityDays: 0 })).toThrow(/capacityDays/);
  });
});

describe('the cloud process (npm run cloud)', () => {
  let dir: string;
  let cloud: CloudProcess;
  const fleetPath = () => join(dir, 'fleet.json');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cloud-proc-'));
    writeFileSync(fleetPath(), JSON.stringify(testFleet()));
    cloud = await startCloudProcess({ SQLITE_PATH: join(dir, 'cloud.sqlite'), FLEET_FILE: fleetPath() });
  });
  afterAll(async () => {
    await cloud?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to start on a bad setting, naming it', async () => {
    const run = runCloudProcess({ PORT: 'abc', SQLITE_PATH: join(dir, 'other.sqlite') });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('PORT');
  });

  it('refuses to start on an invalid fleet file, naming the field', async () => {
    const bad = join(dir, 'bad-fleet.json');
    const fleet = testFleet();
    fleet.lockers[0]!.depth = 0;
    writeFileSync(bad, JSON.stringify(fleet));
    const run = runCloudProcess({ PORT: '0', SQLITE_PATH: join(dir, 'other.sqlite'), FLEET_FILE: bad });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('lockers[0].depth');
  });

  it('serves an icon at /favicon.ico, which browsers ask for on every page', async () => {
    const res = await fetch(`${cloud.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
  });

  it('serves the API and reloads the fleet file on SIGHUP', async () => {
    const name = async () => {
      const res = await fetch(`${cloud.url}/api/v4/auth/postamat/get-by-id?postamatId=1`, { headers: { 'X-Service-Api-Key': KEYS.shopA } });
      return ((await res.json()) as { name: string }).name;
    };
    expect(await name()).toBe('Locker One');
    const fleet = testFleet();
    fleet.lockers[0]!.name = 'Reloaded by SIGHUP';
    writeFileSync(fleetPath(), JSON.stringify(fleet));
    cloud.proc.kill('SIGHUP');
    // Wait for the reload to be logged, then look.
    await expect.poll(() => cloud.output().split('fleet loaded').length - 1, { timeout: 20_000 }).toBe(2);
    expect(await name()).toBe('Reloaded by SIGHUP');
  });

  it('stops on SIGTERM', async () => {
    expect(await cloud.stop()).toBe(0);
  });
});
