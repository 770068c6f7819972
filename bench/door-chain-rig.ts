/**
 * The whole chain from a door closing to the marketplace holding the order-status notification,
 * with the real parts: the hardware simulator (four KR-CU48 boards on one bus, over TCP) and the
 * locker's agent (startLockerRig), the broker (the cloud's embedded one, or Mosquitto at
 * MQTT_URL), the cloud (startCloud with its standard parts: the locker link applying the event,
 * the notification dispatcher) on SQLite or PostgreSQL, and the HTTPS receiver answering at once.
 * With `crossProcess` (PostgreSQL) one cloud applies the locker's facts and has no dispatcher, a
 * second one on the same database delivers, woken over LISTEN/NOTIFY.
 *
 * One sample: an order created over the API, its cell opened for the load once the agent has the
 * order, the simulated door closed at a random point of the poll cycle; timestamps are taken
 * through the link's observation hooks on both ends and at the receiver.
 */
import { performance } from 'node:perf_hooks';
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
import { agentConfigSchema } from '../agent/src/config.js';
import type { DoorChange } from '../agent/src/locker/doors.js';
import type { LinkHooks } from '../agent/src/sync/index.js';
import { startLockerRig, type LockerRig } from '../demo/fleet-runner.js';
import { disableNagle } from '../shared/src/mqtt-nodelay.js';
import { topics } from '../shared/src/topics.js';
import { orderBody } from '../test/cloud/helpers/fleet-fixtures.js';
import { openTestDatabase } from '../test/helpers/cloud-db.js';
import { makeTestPki } from '../test/helpers/test-ca.js';
import { startReceiver, type TestReceiver } from '../test/helpers/test-receiver.js';
import { tomorrowInMoscow, writeFleet } from './bench-fleet.js';
import type { Cleanup } from './link-rig.js';

export const BOARDS = 4;
const LOCKS = 48;
const SHOP_KEY = 'door-bench-shop-key';
const CLOUD_MQTT = { username: 'cloud', password: 'door-bench-cloud-secret' };
const logger = pino({ level: 'silent' });

export interface ChainOptions {
  engine: Engine;
  /** The machine's Mosquitto (MQTT_URL) instead of the embedded broker. */
  mqttUrl?: string | undefined;
  /** PostgreSQL: the notification is delivered by another cloud than the one applying the event. */
  crossProcess?: boolean;
}

/** performance.now() at each point of one door close's way (ms). */
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    const at = performance.now();
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

  const published = new Reached();
  /** Orders (by external id) the agent has applied, with a waiter when one is awaited. */
  const intents = new Map<string, () => void>();
  const intentApplied = (externalId: string): Promise<void> => new Promise((resolve) => intents.set(externalId, resolve));
  const agentHooks: LinkHooks = {
    beforePublish(m) {
      if (m.type === 'events') published.reached(Math.max(...m.items.map((e) => e.dseq)));
    },
    afterApply(command) {
      if (command.type === 'order.upsert') intents.get(command.order.externalId)?.();
    },
  };
  const fleet = await readFleetFile(fleetFile.file);
  const rig: LockerRig = await startLockerRig({
    locker: fleet.lockers.find((l) => l.id === lockerId)!,
    mqtt: { url: brokerUrl, password },
    dataDir: fleetFile.dir,
    screenPort: 0,
    simPort: null,
    logger,
    agentDeps: { link: { hooks: agentHooks } },
  });
  cleanups.push(() => rig.stop());
  const { agent } = rig;
  const doors = agent.locker.doors;
  const doorChange = (cellId: number, closed: boolean): Promise<number> =>
    new Promise((resolve) => {
      const on = (c: DoorChange): void => {
        if (c.cellId !== cellId || c.closed !== closed) return;
        doors.off('change', on);
        resolve(performance.now());
      };
      doors.on('change', on);
    });
  const held = (barcode: string): Promise<number> =>
    new Promise((resolve) => {
      let at = 0;
      void receiver
        .waitFor(() => {
          const got = receiver.delivered.some((c) => c.path === '/order-status' && (c.body as { barcode?: string }).barcode === barcode);
          if (got && at === 0) at = performance.now();
          return got;
        })
        .then(() => resolve(at));
    });

  // Ready: connected, layout applied, every door read once.
  const ready = (): boolean => agent.link?.connected === true && agent.store.cells.all().length === BOARDS * LOCKS && agent.store.cells.all().every((c) => c.door === 'closed');
  for (const end = Date.now() + 30_000; !ready(); await sleep(20)) if (Date.now() > end) throw new Error('door bench: the agent did not come up');

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

  const pollMs = agentConfigSchema.shape.doors.parse(undefined).pollMs;
  let n = 0;
  return {
    async sample() {
      const externalId = `D${lockerId}-${++n}`;
      const barcode = `${externalId}-P1`;
      const intent = intentApplied(externalId);
      const res = await fetch(`${linkCloud.url}/api/v4/auth/delivery/smartorder/create`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', 'X-Service-Api-Key': SHOP_KEY },
        body: JSON.stringify(orderBody(externalId, { postamatId: lockerId, dateDelivery: tomorrowInMoscow() })),
      });
      if (res.status !== 200) throw new Error(`door bench: order ${externalId}: ${res.status} ${await res.text()}`);
      await intent;
      intents.delete(externalId);
      const [match] = agent.store.orders.findByBarcode(barcode);
      const cell = agent.store.cells.get(match!.parcel.cellId!)!;
      const opened = doorChange(cell.id, false);
      const outcome = await agent.locker.ops.openForLoad(cell, { orderId: match!.order.intent.orderId, barcode, grantId: `g-${externalId}` });
      if (!outcome.ok) throw new Error(`door bench: cell ${cell.id} did not open (${outcome.reason})`);
      await opened;
      // The close falls anywhere in the poll cycle.
      await sleep(Math.random() * (pollMs + 20));
      const committed = doorChange(cell.id, true);
      const heldAt = held(barcode);
      const closed = performance.now();
      rig.sim.closeDoor(rig.lockOf(cell.id));
      const committedAt = await committed;
      const dseq = agent.store.outbox.lastDseq();
      const [publishedAt, receivedAt, appliedAt, heldAtMs] = await Promise.all([published.when(dseq), received.when(dseq), applied.when(dseq), heldAt]);
      return { closed, committed: committedAt, published: publishedAt, received: receivedAt, applied: appliedAt, held: heldAtMs };
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
