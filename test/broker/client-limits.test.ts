/**
 * The embedded broker's per-client bounds through real MQTT clients and real HTTP: a connection
 * that asks for too many subscriptions gets SUBACK failures, an address that opens too many
 * connections gets them closed or refused, a persistent session is refused; during each abuse a
 * marketplace reserves and another locker gets its command.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { loadCloudSettings } from '../../cloud/src/settings.js';
import type { MqttSettingsInput } from '../../cloud/src/sync/mqtt-settings.js';
import { topics } from '../../shared/src/topics.js';
import { KEYS, orderBody, testFleet } from '../cloud/helpers/fleet-fixtures.js';
import { ManualClock } from '../cloud/helpers/manual-clock.js';
import { DEFAULT_NOW } from '../cloud/helpers/test-cloud.js';
import { openTestDatabase, type TestDatabase } from '../helpers/cloud-db.js';
import { eventually } from '../helpers/eventually.js';
import { ScriptedLocker } from '../sync/scripted-locker.js';
import { connectClient, connectRefused } from './mqtt-client.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const SUBACK_FAILURE = 128;
const SERVER_UNAVAILABLE = 3;
const IDENTIFIER_REJECTED = 2;

let dir: string | undefined;
let tdb: TestDatabase | undefined;
let cloud: RunningCloud | undefined;
afterEach(async () => {
  await cloud?.stop();
  await tdb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  cloud = undefined;
  tdb = undefined;
  dir = undefined;
});

async function start(limits: MqttSettingsInput): Promise<RunningCloud> {
  dir = mkdtempSync(join(tmpdir(), 'limits-'));
  const fleet = testFleet();
  fleet.lockers = fleet.lockers.map((l) => ({ ...l, mqttPasswordSha256: sha(`pw-${l.id}`) }));
  writeFileSync(join(dir, 'fleet.json'), JSON.stringify(fleet));
  tdb = await openTestDatabase('sqlite');
  cloud = await startCloud(
    loadCloudSettings({}, { config: { port: 0, host: '127.0.0.1', fleetFile: join(dir, 'fleet.json'), logLevel: 'silent' }, mqtt: { brokerPort: 0, ...limits } }),
    { database: tdb, clock: new ManualClock(DEFAULT_NOW) },
  );
  return cloud;
}

async function call(c: RunningCloud, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${c.url}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A marketplace reserves and locker 2 (connected before the abuse) gets its command. */
async function othersServed(c: RunningCloud, other: ScriptedLocker, orderNo: string): Promise<void> {
  const since = other.mark();
  const [reserved, flagged] = await Promise.all([
    call(c, 'PUT', '/api/v4/auth/delivery/smartorder/create', { 'x-service-api-key': KEYS.shopA }, orderBody(orderNo)),
    call(c, 'PUT', '/operator/postamats/2/cells/1/flags', { 'x-operator-api-key': KEYS.operator }, { blocked: true }),
  ]);
  expect(reserved.status).toBe(200);
  expect(flagged.status).toBe(200);
  await eventually(() => other.commandsSince(since).length > 0, "locker 2's command");
}

async function lockerTwo(c: RunningCloud): Promise<ScriptedLocker> {
  const other = await ScriptedLocker.connect(c.brokerUrl!, '2', 'pw-2', 1);
  await other.hello(0, 0, 1);
  return other;
}

/** A TCP connection to the broker that never sends CONNECT; resolves once open. */
function silentSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.once('error', reject);
  });
}
const closedByPeer = (socket: Socket): Promise<void> => new Promise((resolve) => (socket.closed ? resolve() : socket.once('close', () => resolve())));

describe('the embedded broker bounds each client', () => {
  it('refuses a bound out of range at start, naming its variable', () => {
    for (const name of ['MQTT_MAX_SUBSCRIPTIONS_PER_CLIENT', 'MQTT_MAX_PENDING_CONNECTIONS_PER_ADDRESS', 'MQTT_MAX_CONNECTIONS_PER_ADDRESS', 'MQTT_MAX_INFLIGHT_MESSAGES']) {
      expect(() => loadCloudSettings({ [name]: '0' })).toThrow(name);
    }
  });

  it('refuses subscriptions beyond MQTT_MAX_SUBSCRIPTIONS_PER_CLIENT, repeated or not, in the SUBACK', async () => {
    const c = await start({ maxSubscriptions: 4 });
    const other = await lockerTwo(c);
    const noisy = await connectClient(c.brokerUrl!, { clientId: '1', username: '1', password: 'pw-1' });
    const granted: number[] = [];
    for (let i = 0; i < 6; i++) granted.push(await noisy.subscribe(i % 2 ? topics.presence('1') : topics.down('1')));
    expect(granted).toEqual([1, 1, 1, 1, SUBACK_FAILURE, SUBACK_FAILURE]);
    // A burst of many filters in one SUBSCRIBE is refused filter by filter, the connection stays.
    const burst = await noisy.client.subscribeAsync(
      Array.from({ length: 1_000 }, (_, i) => `lockers/1/down${i}`),
      { qos: 1 },
    ).then(
      () => [],
      (err: { packet?: { granted?: number[] } }) => err.packet?.granted ?? [],
    );
    expect(burst).toEqual(Array.from({ length: 1_000 }, () => SUBACK_FAILURE));
    await othersServed(c, other, 'SUBS-1');
    expect(noisy.closed).toBe(false);
    // A new connection gets a new budget.
    await noisy.end();
    const again = await connectClient(c.brokerUrl!, { clientId: '1', username: '1', password: 'pw-1' });
    expect(await again.subscribe(topics.down('1'))).toBe(1);
    await again.end();
    await other.end();
  });

  it('closes connections from one address beyond MQTT_MAX_PENDING_CONNECTIONS_PER_ADDRESS not yet logged in', async () => {
    const c = await start({ maxPendingConnectionsPerAddress: 4 });
    const other = await lockerTwo(c);
    const port = Number(new URL(c.brokerUrl!).port);
    const silent: Socket[] = [];
    for (let i = 0; i < 4; i++) silent.push(await silentSocket(port));
    const beyond = await silentSocket(port);
    await closedByPeer(beyond);
    // Lockers logged in before are not affected.
    await othersServed(c, other, 'PENDING-1');
    expect(silent.every((s) => !s.closed)).toBe(true);
    // With a slot free again, a locker logs in.
    for (const s of silent) s.destroy();
    const locker = await eventually(
      () => connectClient(c.brokerUrl!, { clientId: '1', username: '1', password: 'pw-1' }).catch(() => undefined),
      'a connection once the silent ones closed',
    );
    await locker.end();
    await other.end();
  });

  it('refuses a CONNECT beyond MQTT_MAX_CONNECTIONS_PER_ADDRESS with CONNACK "server unavailable"', async () => {
    // The cloud's own client and locker 2 are two of the three from 127.0.0.1.
    const c = await start({ maxConnectionsPerAddress: 3 });
    const other = await lockerTwo(c);
    const first = await connectClient(c.brokerUrl!, { clientId: '1', username: '1', password: 'pw-1' });
    expect(await connectRefused(c.brokerUrl!, { clientId: '1', username: '1', password: 'pw-1' })).toBe(SERVER_UNAVAILABLE);
    // The refused one did not replace the first.
    expect(first.closed).toBe(false);
    await othersServed(c, other, 'TOTAL-1');
    await first.end();
    await eventually(
      () => connectClient(c.brokerUrl!, { clientId: '1', username: '1', password: 'pw-1' }).catch(() => undefined),
      'a connection once the first closed',
    ).then((l) => l.end());
    await other.end();
  });

  it('refuses a persistent session, so nothing queues for an absent client', async () => {
    const c = await start({});
    expect(await connectRefused(c.brokerUrl!, { clientId: '1', username: '1', password: 'pw-1', clean: false })).toBe(IDENTIFIER_REJECTED);
  });
});
