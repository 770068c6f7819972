/**
 * One locker's oversized message against the whole cloud, through a real MQTT client and real
 * HTTP: the offender is cut off at the embedded broker, while /health answers, a marketplace
 * reserves, and another locker gets its command.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { loadCloudSettings } from '../../cloud/src/settings.js';
import { MAX_MESSAGE_BYTES } from '../../shared/src/protocol.js';
import { topics } from '../../shared/src/topics.js';
import { KEYS, orderBody, testFleet } from '../cloud/helpers/fleet-fixtures.js';
import { ManualClock } from '../cloud/helpers/manual-clock.js';
import { DEFAULT_NOW } from '../cloud/helpers/test-cloud.js';
import { openTestDatabase, type TestDatabase } from '../helpers/cloud-db.js';
import { eventually } from '../helpers/eventually.js';
import { ScriptedLocker } from '../sync/scripted-locker.js';
import { connectClient } from './mqtt-client.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

describe('a locker sending an oversized message', () => {
  let dir: string;
  let tdb: TestDatabase;
  let cloud: RunningCloud;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'noisy-'));
    const fleet = testFleet();
    fleet.lockers = fleet.lockers.map((l) => ({ ...l, mqttPasswordSha256: sha(`pw-${l.id}`) }));
    writeFileSync(join(dir, 'fleet.json'), JSON.stringify(fleet));
    tdb = await openTestDatabase('sqlite');
    cloud = await startCloud(
      loadCloudSettings({}, { config: { port: 0, host: '127.0.0.1', fleetFile: join(dir, 'fleet.json'), logLevel: 'silent' }, mqtt: { brokerPort: 0 }, sandbox: { firstPort: 0 } }),
      { database: tdb, clock: new ManualClock(DEFAULT_NOW) },
    );
  });
  afterAll(async () => {
    await cloud.stop();
    await tdb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(`${cloud.url}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('is cut off alone: /health, a reservation and another locker command complete', async () => {
    const other = await ScriptedLocker.connect(cloud.brokerUrl!, '2', 'pw-2', 1);
    await other.hello(0, 0, 1);
    const noisy = await connectClient(cloud.brokerUrl!, { clientId: '1', username: '1', password: 'pw-1' });
    const since = other.mark();

    noisy.client.publish(topics.up('1'), Buffer.alloc(8 * MAX_MESSAGE_BYTES, 0x7b), { qos: 1 });
    const [health, reserved, flagged] = await Promise.all([
      fetch(`${cloud.url}/health`).then((r) => r.status),
      call('PUT', '/api/v4/auth/delivery/smartorder/create', { 'x-service-api-key': KEYS.shopA }, orderBody('NOISY-1')),
      call('PUT', '/operator/postamats/2/cells/1/flags', { 'x-operator-api-key': KEYS.operator }, { blocked: true }),
    ]);
    await noisy.waitClosed();
    expect(health).toBe(200);
    expect(reserved.status).toBe(200);
    expect(flagged.status).toBe(200);
    await eventually(() => other.commandsSince(since).length > 0, "locker 2's command");

    const alerts = await call('GET', '/operator/alerts?lockerId=1', { 'x-operator-api-key': KEYS.operator });
    expect(alerts.status).toBe(200);
    expect(JSON.stringify(alerts.body)).toContain('mqtt.oversized');
    const metrics = await (await fetch(`${cloud.url}/metrics`)).text();
    expect(metrics).toMatch(/cloud_mqtt_oversized_messages_total\{at="broker"\} 1/);
    await other.end();
  });
});
