/**
 * The whole chain from a door closing to the marketplace holding the order-status notification,
 * with the real parts: the hardware simulator (four KR-CU48 boards on one bus, over TCP) and the
 * locker's agent (startLockerRig) in a process of their own (bench/door-chain-locker.ts), the broker (the cloud's embedded one, or Mosquitto at
 * MQTT_URL), the cloud (startCloud with its standard parts: the locker link applying the event,
 * the notification dispatcher) on SQLite or PostgreSQL, and the HTTPS receiver answering at once.
 * With `crossProcess` (PostgreSQL) one cloud applies the locker's facts and has no dispatcher, a
 * second one on the same database delivers, woken over LISTEN/NOTIFY.
 *
 * One sample: an order created over the API, its cell opened for the load once the agent has the
 * order, the simulated door closed at a random point of the poll cycle; timestamps are taken
 * through the link's observation hooks on both ends and at the receiver.
 */
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { randomInt } from 'node:crypto';
import { pino } from 'pino';
import mqtt, { type MqttClient } from 'mqtt';
import { Agent, request } from 'undici';
import { hashMqttPassword } from '../cloud/src/broker/mqtt-password.js';
import { CloudBackground } from '../cloud/src/background.js';
import { startCloud, type RunningCloud } from '../cloud/src/cloud.js';
import type { Engine } from '../cloud/src/db/database.js';
import type { FleetInput } from '../cloud/src/fleet/fleet-schema.js';
import { readFleetFile } from '../cloud/src/fleet/provision.js';
import { loadCloudSettings, type CloudSettings } from '../cloud/src/settings.js';
import type { LockerLinkHooks } from '../cloud/src/sync/hooks.js';
import { disableNagle } from '../shared/src/mqtt-nodelay.js';
import { topics } from '../shared/src/topics.js';
import { orderBody } from '../test/cloud/helpers/fleet-fixtures.js';
import { openTestDatabase } from '../test/helpers/cloud-db.js';
import { makeTestPki } from '../test/helpers/test-ca.js';
import { startReceiver, type TestReceiver } from '../test/helpers/test-receiver.js';
import { tomorrowInMoscow, writeFleet } from './bench-fleet.js';
import type { FromLocker, LockerSpec, ToLocker } from './door-chain-locker.js';
import type { Cleanup } from './link-rig.js';

export const BOARDS = 4;
const LOCKS = 48;
const SHOP_KEY = 'door-bench-shop-key';
const CLOUD_MQTT = { username: 'cloud', password: 'door-bench-cloud-secret' };
const logger = pino({ level: 'silent' });
const here = dirname(fileURLToPath(import.meta.url));

export interface ChainOptions {
  engine: Engine;
  /** The machine's Mosquitto (MQTT_URL) instead of the embedded broker. */
  mqttUrl?: string | undefined;
  /** PostgreSQL: the notification is delivered by another cloud than the one applying the event. */
  crossProcess?: boolean;
}

/** Epoch ms (sub-millisecond) at each point of one door close's way, from both processes. */
export interface ChainSample {
  closed: number;
  /** The agent's transaction recording the close (and the parcel.loaded event) committed. */
  committed: number;
  /** The agent handed the events message to the broker. */
  published: number;
  /** The cloud's link got it from the broker. */
  received: number;
  /** The cloud's transaction applying it (and recording the notifications) committed. */
  applied: number;
  /** The receiver holds the order-status notification. */
  held: number;
}

export interface ChainRig {
  /** Measures one door close, end to end. */
  sample(): Promise<ChainSample>;
  /** One raw MQTT round trip through the same broker (QoS 1 down to a locker topic and back up). */
  rawMqttRoundTrip(): Promise<number>;
  /** One bare HTTPS POST to the receiver over a kept-alive connection. */
  rawHttpsRoundTrip(): Promise<number>;
  /** The same on a new connection (TCP and TLS handshakes): a receiver whose keep-alive lapsed. */
  rawHttpsColdRoundTrip(): Promise<number>;
}

/** Epoch ms at sub-millisecond resolution, comparable with the locker process's. */
const now = () => performance.timeOrigin + performance.now();

/**
 * When a stream first reached each number (a dseq): the hooks call `reached`, a sample asks
 * `when`. A number passed before anyone asked is answered from the record.
 */
class Reached {
  #upTo = 0;
  readonly #at = new Map<number, number>();
  readonly #waiters: { n: number; resolve: (at: number) => void }[] = [];
  reached(n: number): void {
    if (n <= this.#upTo) return;
    const at = now();
    for (let i = this.#upTo + 1; i <= n; i++) this.#at.set(i, at);
    this.#upTo = n;
    for (const w of this.#waiters.filter((x) => x.n <= n)) {
      this.#waiters.splice(this.#waiters.indexOf(w), 1);
      w.resolve(at);
    }
  }
  when(n: number): Promise<number> {
    const at = this.#at.get(n);
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }
}

interface LockerProcess {
  sample(externalId: string, barcode: string): Promise<{ closed: number; committed: number; published: number; dseq: number }>;
}

/** Forks the locker (simulator and agent) and waits until it is up; one sample at a time. */
async function startLocker(spec: LockerSpec, cleanups: Cleanup[]): Promise<LockerProcess> {
  const child = fork(join(here, 'door-chain-locker.ts'), [JSON.stringify(spec)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send({ type: 'stop' } satisfies ToLocker);
    await exited;
  });
  const next = (): Promise<FromLocker> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`door bench: the locker process exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (m: FromLocker) => {
        child.off('exit', onExit);
        if (m.type === 'error') reject(new Error(`door bench locker: ${m.message}`));
        else resolve(m);
      });
    });
  await next();
  return {
    async sample(externalId, barcode) {
      const answer = next();
      child.send({ type: 'sample', externalId, barcode } satisfies ToLocker);
      const m = await answer;
      if (m.type !== 'sample') throw new Error(`door bench: unexpected ${m.type} from the locker`);
      return m;
    },
  };
}

function chainFleet(lockerId: number, lockerPassword: string, receiver: TestReceiver, caFile: string): FleetInput {
  const sizes = [100, 200, 400];
  return {
    lockers: [
      {
        id: lockerId,
        name: `Door bench locker ${lockerId}`,
        timezone: 'Europe/Moscow',
        depth: 600,
        location: { id: lockerId, city: 'Moscow', street: 'Bench street', house: '1', latitude: 55.75, longitude: 37.61, fullAddress: 'Moscow, Bench street, 1' },
        equipment: { barcodeScanner: false, heatedCells: false, cooledCells: false },
        boardFamily: 'kerong-cu48',
        mqttPasswordSha256: hashMqttPassword(lockerPassword),
        // Every board of the bus carries cells, so every poll reads all four.
        cells: Array.from({ length: BOARDS * LOCKS }, (_, i) => ({ id: i + 1, width: 400, height: sizes[i % 3]!, board: i % BOARDS, lock: Math.floor(i / BOARDS) + 1 })),
      },
    ],
    marketplaces: [
      {
        id: 'shop-a',
        name: 'Shop A',
        apiKeySha256: [hashMqttPassword(SHOP_KEY)],
        rateLimits: { requests: { max: 1_000_000, windowSeconds: 1 } },
        receiver: { url: receiver.url, login: receiver.login, password: receiver.password, caFile, bodyForm: 'object' },
      },
    ],
    partners: [],
    operators: [],
  };
}

/** Sets the chain up; every cleanup is pushed to `cleanups`, to be run in reverse. */
export async function startChainRig(opts: ChainOptions, cleanups: Cleanup[]): Promise<ChainRig> {
  const pki = await makeTestPki();
  const receiver = await startReceiver(pki);
  cleanups.push(() => receiver.down());
  const tdb = await openTestDatabase(opts.engine);
  cleanups.push(() => tdb.close());
  // Random ids: runs sharing a Mosquitto never meet.
  const lockerId = randomInt(1_000_000, 9_000_000);
  const spareId = lockerId + 1;
  const password = `door-bench-${lockerId}`;
  const fleetInput = chainFleet(lockerId, password, receiver, pki.caFile);
  fleetInput.lockers.push({ ...fleetInput.lockers[0]!, id: spareId, name: `Door bench spare ${spareId}`, mqttPasswordSha256: hashMqttPassword(`${password}-spare`) });
  const fleetFile = writeFleet(fleetInput);
  cleanups.push(() => fleetFile.remove());

  const settingsOf = (mqttEnabled: boolean): CloudSettings =>
    loadCloudSettings(
      {},
      {
        config: { host: '127.0.0.1', port: 0, fleetFile: fleetFile.file, logLevel: 'silent', ...tdb.location },
        mqtt: { enabled: mqttEnabled, url: opts.mqttUrl, brokerHost: '127.0.0.1', brokerPort: 0, ...CLOUD_MQTT, clientId: `cloud-door-${lockerId}` },
        sandbox: { firstPort: 0 },
      },
    );

  const received = new Reached();
  const applied = new Reached();
  const hooks: LockerLinkHooks = {
    onReceive(id, m) {
      if (id === lockerId && m.type === 'events') received.reached(Math.max(...m.items.map((e) => e.dseq)));
    },
    afterEvents(id, result) {
      if (id === lockerId) applied.reached(result.ackedDseq);
    },
  };

  let linkCloud: RunningCloud;
  let brokerUrl: string;
  if (opts.crossProcess) {
    // The applying cloud: the standard parts but the dispatcher, so another process must deliver.
    const background = new CloudBackground(settingsOf(true), { hooks });
    linkCloud = await startCloud(settingsOf(true).config, {
      database: tdb,
      logger,
      parts: background.parts().map((make) => (deps) => {
        const part = make(deps);
        return part.name === 'notification-dispatcher' ? { name: part.name, start: () => Promise.resolve(), stop: () => Promise.resolve() } : part;
      }),
    });
    cleanups.push(() => linkCloud.stop());
    brokerUrl = opts.mqttUrl ?? background.brokerUrl!;
    // The delivering cloud: its own pool and wake-up channel on the same database, no locker link.
    const delivering = await startCloud(settingsOf(false), { logger });
    cleanups.push(() => delivering.stop());
  } else {
    linkCloud = await startCloud(settingsOf(true), { database: tdb, logger, link: { hooks } });
    cleanups.push(() => linkCloud.stop());
    brokerUrl = opts.mqttUrl ?? linkCloud.brokerUrl!;
  }

  const fleet = await readFleetFile(fleetFile.file);
  const locker = await startLocker({ locker: fleet.lockers.find((l) => l.id === lockerId)!, brokerUrl, password, dataDir: fleetFile.dir }, cleanups);
  const held = (barcode: string): Promise<number> =>
    new Promise((resolve) => {
      let at = 0;
      void receiver
        .waitFor(() => {
          const got = receiver.delivered.some((c) => c.path === '/order-status' && (c.body as { barcode?: string }).barcode === barcode);
          if (got && at === 0) at = now();
          return got;
        })
        .then(() => resolve(at));
    });

  // The raw MQTT baseline: a spare locker's topic echoed back up by a client of that locker.
  const connect = async (clientId: string, username: string, pw: string): Promise<MqttClient> => {
    const client = await mqtt.connectAsync(brokerUrl, { clientId, username, password: pw, protocolVersion: 4, clean: true, reconnectPeriod: 0 });
    disableNagle(client);
    cleanups.push(() => client.endAsync());
    return client;
  };
  const spare = await connect(String(spareId), String(spareId), `${password}-spare`);
  await spare.subscribeAsync(topics.down(String(spareId)), { qos: 1 });
  spare.on('message', (_t, payload) => void spare.publishAsync(topics.up(String(spareId)), payload, { qos: 1 }));
  const cloudSide = await connect(`${CLOUD_MQTT.username}-door-bench-${lockerId}`, CLOUD_MQTT.username, CLOUD_MQTT.password);
  await cloudSide.subscribeAsync(topics.up(String(spareId)), { qos: 1 });
  let answered: (() => void) | undefined;
  cloudSide.on('message', () => answered?.());

  const https = new Agent({ connect: { ca: pki.caPem } });
  cleanups.push(() => https.destroy());
  const auth = `Basic ${Buffer.from(`${receiver.login}:${receiver.password}`).toString('base64')}`;

  const post = async (dispatcher: Agent): Promise<number> => {
    const t0 = performance.now();
    const r = await request(`${receiver.url}/order-status`, { method: 'POST', dispatcher, headers: { authorization: auth, 'content-type': 'application/json' }, body: '{}' });
    await r.body.dump();
    return performance.now() - t0;
  };

  let n = 0;
  return {
    async sample() {
      const externalId = `D${lockerId}-${++n}`;
      const barcode = `${externalId}-P1`;
      const res = await fetch(`${linkCloud.url}/api/v4/auth/delivery/smartorder/create`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', 'X-Service-Api-Key': SHOP_KEY },
        body: JSON.stringify(orderBody(externalId, { postamatId: lockerId, dateDelivery: tomorrowInMoscow() })),
      });
      if (res.status !== 200) throw new Error(`door bench: order ${externalId}: ${res.status} ${await res.text()}`);
      const heldAt = held(barcode);
      const at = await locker.sample(externalId, barcode);
      const dseq = at.dseq;
      const [receivedAt, appliedAt, heldAtMs] = await Promise.all([received.when(dseq), applied.when(dseq), heldAt]);
      return { closed: at.closed, committed: at.committed, published: at.published, received: receivedAt, applied: appliedAt, held: heldAtMs };
    },
    rawMqttRoundTrip: () =>
      new Promise<number>((resolve) => {
        const t0 = performance.now();
        answered = () => resolve(performance.now() - t0);
        cloudSide.publish(topics.down(String(spareId)), 'ping', { qos: 1 });
      }),
    rawHttpsRoundTrip: () => post(https),
    async rawHttpsColdRoundTrip() {
      const fresh = new Agent({ connect: { ca: pki.caPem } });
      try {
        return await post(fresh);
      } finally {
        await fresh.destroy();
      }
    },
  };
}
