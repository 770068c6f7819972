/**
 * "Online since" tells a cloud restart from the locker's: the cloud (its own process, the embedded
 * broker) restarts on the same database; every locker it had stored online is offline as of the
 * new start (no locker can be connected to a broker that just started), and the locker that
 * reconnects is shown online again with the cause `cloud_restart`. The rule that names the cause
 * is checked on its own below.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashMqttPassword } from '../../cloud/src/broker/mqtt-password.js';
import { START_WINDOW_MS, onlineCause } from '../../cloud/src/operator/online-cause.js';
import { startCloudProcess, type CloudProcess } from '../cloud/helpers/cloud-process.js';
import { KEYS, testFleet } from '../cloud/helpers/fleet-fixtures.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/free-port.js';
import { ScriptedLocker } from '../sync/scripted-locker.js';

const PASSWORD = 'locker-1-link-password';

interface Detail {
  online: boolean;
  since: string | null;
  cloudStartedAt: string;
  agentStartedAt: string | null;
  onlineCause: string | null;
}

describe('online since across a cloud restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'online-cause-'));
  const clouds: CloudProcess[] = [];
  const lockers: ScriptedLocker[] = [];
  afterAll(async () => {
    for (const l of lockers) await l.end().catch(() => undefined);
    for (const c of clouds) await c.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const detail = async (cloud: CloudProcess): Promise<Detail> => {
    const res = await fetch(`${cloud.url}/operator/lockers/1`, { headers: { 'X-Operator-Api-Key': KEYS.operator } });
    expect(res.status).toBe(200);
    return (await res.json()) as Detail;
  };

  it('shows the locker offline from the new start, then online again because the cloud restarted', async () => {
    const fleet = testFleet();
    fleet.lockers[0]!.mqttPasswordSha256 = hashMqttPassword(PASSWORD);
    writeFileSync(join(dir, 'fleet.json'), JSON.stringify(fleet));
    const brokerPort = await freePort();
    const env = { SQLITE_PATH: join(dir, 'cloud.sqlite'), FLEET_FILE: join(dir, 'fleet.json'), MQTT_BROKER_PORT: String(brokerPort) };
    const url = `mqtt://127.0.0.1:${brokerPort}`;

    const first = await startCloudProcess(env);
    clouds.push(first);
    lockers.push(await ScriptedLocker.connect(url, '1', PASSWORD, 1));
    await eventually(async () => (await detail(first)).online, 'locker 1 online');
    await first.stop();
    clouds.pop();

    const second = await startCloudProcess(env);
    clouds.push(second);
    const after = await detail(second);
    expect(after.online).toBe(false);
    expect(Date.parse(after.since!)).toBeGreaterThanOrEqual(Date.parse(after.cloudStartedAt));
    expect(after.onlineCause).toBeNull();

    lockers.push(await ScriptedLocker.connect(url, '1', PASSWORD, 2));
    const back = await eventually(async () => {
      const d = await detail(second);
      return d.online ? d : null;
    }, 'locker 1 online again');
    expect(back.onlineCause).toBe('cloud_restart');
    expect(Date.parse(back.since!)).toBeGreaterThanOrEqual(Date.parse(back.cloudStartedAt));
  });
});

describe('the cause of an online period', () => {
  const cloud = Date.parse('2030-03-04T09:00:00Z');
  it('names the cloud restart, the locker restart or a link that came back', () => {
    const at = (offsetMs: number) => cloud + offsetMs;
    expect(onlineCause({ online: true, since: at(5_000), cloudStartedAt: cloud, agentStartedAt: at(-86_400_000) })).toBe('cloud_restart');
    expect(onlineCause({ online: true, since: at(3_600_000), cloudStartedAt: cloud, agentStartedAt: at(3_590_000) })).toBe('locker_restart');
    expect(onlineCause({ online: true, since: at(3_600_000), cloudStartedAt: cloud, agentStartedAt: at(-86_400_000) })).toBe('link_restored');
    expect(onlineCause({ online: true, since: at(START_WINDOW_MS + 1), cloudStartedAt: cloud, agentStartedAt: null })).toBe('link_restored');
    // An external broker keeps the link across a cloud restart: the period began before it.
    expect(onlineCause({ online: true, since: at(-60_000), cloudStartedAt: cloud, agentStartedAt: null })).toBe('link_restored');
    expect(onlineCause({ online: false, since: at(5_000), cloudStartedAt: cloud, agentStartedAt: null })).toBeNull();
  });
});
