/**
 * The topology of a fault-suite run, every part real and restartable:
 * - the cloud as its own process (cloud-entry.ts: startCloud with the standard parts) on a SQLite
 *   file, its API on a fixed port so that it comes back where the marketplace calls it;
 * - a broker the test can restart: the embedded broker (EmbeddedBroker, authenticating against
 *   the cloud's database) in this process, or a private Mosquitto from deploy/mosquitto's config;
 * - one agent process per locker (agent-entry.ts), each with its simulator in this process
 *   (reached over TCP) and a cuttable TCP proxy to the broker whose relay can duplicate and
 *   reorder MQTT packets (mqtt-chaos.ts);
 * - a real HTTPS receiver for the marketplace's notifications, with a CA made at test time.
 * Every process reads one clock: real time moved to a fixed Monday morning in Moscow.
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { EmbeddedBroker } from '../../cloud/src/broker/embedded-broker.js';
import { hashMqttPassword } from '../../cloud/src/broker/mqtt-password.js';
import type { FleetInput } from '../../cloud/src/fleet/fleet-schema.js';
import type { AgentConfigInput } from '../../agent/src/config.js';
import { type SimulatorHandle, startSimulator } from '../../sim/src/index.js';
import type { Random } from '../../sim/src/random.js';
import { type TestDatabase, openTestDatabase } from '../helpers/cloud-db.js';
import { freePort } from '../helpers/free-port.js';
import { type PrivateMosquitto, startPrivateMosquitto } from '../helpers/private-mosquitto.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { makeTestPki } from '../helpers/test-ca.js';
import { type TestReceiver, startReceiver } from '../helpers/test-receiver.js';
import { clockEnv, sharedClockAt } from './child-support.js';
import { type ChaosOdds, MqttChaos } from './mqtt-chaos.js';
import { SupervisedChild } from './supervised-child.js';

export type BrokerKind = 'embedded' | 'mosquitto';

/** Monday 2030-03-04, 10:00 in Moscow: the run's clock starts here. */
export const CLOCK_EPOCH = Date.parse('2030-03-04T07:00:00Z');
export const TODAY = '2030-03-04';
export const KEYS = { shop: 'fault-shop-key', shopB: 'fault-shop-b-key', partner: 'fault-partner-key' } as const;
/** The marketplaces of a run (one receiver for both) and the key each calls with. */
export const MARKETPLACES = { 'shop-a': 'shop', 'shop-b': 'shopB' } as const;
export type MarketplaceId = keyof typeof MARKETPLACES;
const CLOUD_USER = 'cloud-1';

/** Four small, two medium and two large cells on board 0; the lock number is the cell id. */
const CELLS = [
  ...[1, 2, 3, 4].map((id) => ({ id, width: 400, height: 100, board: 0, lock: id })),
  ...[5, 6].map((id) => ({ id, width: 400, height: 200, board: 0, lock: id })),
  ...[7, 8].map((id) => ({ id, width: 400, height: 400, board: 0, lock: id })),
];

export interface WorldOptions {
  broker: BrokerKind;
  lockers: number;
  /** The run's random source (chaos draws come from it). */
  random: Random;
  chaos: ChaosOdds;
  /** The receiver's answer to each notification call. */
  receiverBehaviour: () => number | 'hang';
  /** Storage periods by marketplace (72 hours unless a run needs storage to end sooner). */
  storagePeriodHours?: Partial<Record<MarketplaceId, number>>;
}

export interface LockerRig {
  readonly id: number;
  readonly sim: SimulatorHandle;
  readonly proxy: TcpProxy;
  readonly chaos: MqttChaos;
  readonly agent: SupervisedChild;
  readonly dbPath: string;
  readonly appliedFile: string;
}

interface Broker {
  readonly url: string;
  restart(pauseMs: number): Promise<void>;
  stop(): Promise<void>;
}

export interface FaultWorld {
  readonly dir: string;
  readonly tdb: TestDatabase;
  readonly receiver: TestReceiver;
  readonly cloud: SupervisedChild;
  readonly lockers: readonly LockerRig[];
  readonly broker: Broker;
  readonly brokerKind: BrokerKind;
  /** Date.now() when the world was made; crash times are relative to it. */
  readonly startedAt: number;
  children(): SupervisedChild[];
  /** The run's clock now, as every process reads it. */
  now(): number;
  /**
   * Moves every process's clock `ms` ahead (hours pass in an instant: what the cloud and the
   * agents do about it then follows from their own timers). Resolves once every running process
   * answered; one that is down starts its next life with the new offset.
   */
  advanceClock(ms: number): Promise<void>;
  close(opts: { keepDir: boolean }): Promise<void>;
}

const sha = (text: string) => hashMqttPassword(text);
const lockerPassword = (id: number) => `locker-${id}-fault-secret`;

function fleet(ids: number[], receiver: TestReceiver, caFile: string, storagePeriodHours: Partial<Record<MarketplaceId, number>>): FleetInput {
  const lockers = ids.map((id, i) => ({
    id,
    name: `Locker ${id}`,
    timezone: 'Europe/Moscow',
    depth: 500,
    location: { id, city: 'Moscow', street: 'Fault street', house: String(i + 1), latitude: 55.75, longitude: 37.61, fullAddress: `Moscow, Fault street, ${i + 1}` },
    mqttPasswordSha256: sha(lockerPassword(id)),
    cells: CELLS,
  }));
  return {
    lockers,
    marketplaces: (Object.entries(MARKETPLACES) as [MarketplaceId, keyof typeof KEYS][]).map(([id, key]) => ({
      id,
      name: `Shop ${id.slice(-1).toUpperCase()}`,
      apiKeySha256: [sha(KEYS[key])],
      storagePeriodHours: storagePeriodHours[id] ?? 72,
      receiver: { url: receiver.url, login: receiver.login, password: receiver.password, caFile, bodyForm: 'object' as const },
    })),
    partners: [{ id: 'courier-co', name: 'Courier Co', apiKeySha256: [sha(KEYS.partner)], marketplaces: Object.keys(MARKETPLACES), lockers: ids }],
    operators: [],
  };
}

async function embeddedBroker(tdb: TestDatabase, cloudPassword: string): Promise<Broker> {
  const port = await freePort();
  const make = () =>
    new EmbeddedBroker({ db: tdb, logger: pino({ level: 'silent' }), host: '127.0.0.1', port, cloud: { username: CLOUD_USER, password: cloudPassword } });
  let broker = make();
  await broker.start();
  return {
    url: `mqtt://127.0.0.1:${port}`,
    async restart(pauseMs) {
      await broker.stop();
      await new Promise((r) => setTimeout(r, pauseMs));
      broker = make();
      await broker.start();
    },
    stop: () => broker.stop(),
  };
}

async function mosquittoBroker(ids: number[], cloudPassword: string): Promise<Broker> {
  const users = Object.fromEntries([...ids.map((id) => [String(id), lockerPassword(id)]), [CLOUD_USER, cloudPassword]]);
  const m: PrivateMosquitto = await startPrivateMosquitto(users);
  return {
    url: m.url,
    async restart(pauseMs) {
      // restart() stops and starts again; the pause is the broker's downtime.
      await new Promise((r) => setTimeout(r, pauseMs));
      await m.restart();
    },
    stop: () => m.stop(),
  };
}

export async function openFaultWorld(opts: WorldOptions): Promise<FaultWorld> {
  const startedAt = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'fault-run-'));
  const cleanup: (() => Promise<void>)[] = [];
  const undo = async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => undefined);
  };
  try {
    const tdb = await openTestDatabase('sqlite');
    cleanup.push(() => tdb.close());
    const pki = await makeTestPki();
    const receiver = await startReceiver(pki);
    receiver.behaviour = () => opts.receiverBehaviour();
    cleanup.push(() => receiver.down());
    const ids = Array.from({ length: opts.lockers }, (_, i) => 101 + i);
    const fleetFile = join(dir, 'fleet.json');
    writeFileSync(fleetFile, JSON.stringify(fleet(ids, receiver, pki.caFile, opts.storagePeriodHours ?? {})));

    const cloudPassword = 'cloud-fault-secret';
    const broker = opts.broker === 'embedded' ? await embeddedBroker(tdb, cloudPassword) : await mosquittoBroker(ids, cloudPassword);
    cleanup.push(() => broker.stop());

    const clock = clockEnv(CLOCK_EPOCH, startedAt);
    const cloud = new SupervisedChild(
      'cloud',
      'test/fault/cloud-entry.ts',
      [],
      {
        ...clock,
        SQLITE_PATH: tdb.location.sqlitePath!,
        FLEET_FILE: fleetFile,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        MQTT_URL: broker.url,
        MQTT_USERNAME: CLOUD_USER,
        MQTT_PASSWORD: cloudPassword,
        MQTT_CLIENT_ID: `${CLOUD_USER}-fault`,
        NOTIFY_RETRY_SECONDS: '1',
        NOTIFY_TIMEOUT_SECONDS: '2',
        NOTIFY_LEASE_SECONDS: '4',
        NOTIFY_POLL_SECONDS: '1',
        STORAGE_CLOCK_CRON: '*/2 * * * * *',
        FAULT_LINK_RESEND_MS: '4000',
        FAULT_LINK_POLL_MS: '1000',
      },
      join(dir, 'cloud.log'),
      startedAt,
    );
    cleanup.push(() => cloud.stop());
    await cloud.start();

    const lockers: LockerRig[] = [];
    for (const id of ids) {
      const sim = await startSimulator({ buses: [{ name: 'main', family: 'kerong-cu48', boards: 1 }], scanner: false });
      cleanup.push(() => sim.stop());
      const chaos = new MqttChaos(opts.random, opts.chaos);
      const proxy = new TcpProxy(broker.url, () => chaos.relay());
      await proxy.start();
      cleanup.push(() => proxy.stop());
      const dbPath = join(dir, `agent-${id}.sqlite`);
      const appliedFile = join(dir, `agent-${id}.applied.jsonl`);
      const config: AgentConfigInput = {
        lockerId: String(id),
        buses: [{ ...sim.busConfig('main', 'tcp'), confirmDelayMs: 50, reconnectMinMs: 50, reconnectMaxMs: 500 }],
        mqtt: { url: proxy.url, password: lockerPassword(id), keepaliveSec: 5, reconnectMinMs: 200, reconnectMaxMs: 2_000, resendAfterMs: 3_000, batchSize: 5, windowSize: 20 },
        dbPath,
        screen: { port: await freePort(), defaultLanguage: 'en', idleMs: 3_600_000 },
        // Codes a locker does not know yet are common in these histories: keep the keypad patient.
        keypad: { freeAttempts: 20, baseDelayMs: 1_000, maxDelayMs: 1_000, dailyAlarmThreshold: 10_000 },
        doors: { pollMs: 100, leftOpenMs: 3_600_000 },
      };
      const configFile = join(dir, `agent-${id}.json`);
      writeFileSync(configFile, JSON.stringify(config));
      const agent = new SupervisedChild(`agent-${id}`, 'test/fault/agent-entry.ts', [configFile], { ...clock, FAULT_APPLIED: appliedFile }, join(dir, `agent-${id}.log`), startedAt);
      cleanup.push(() => agent.stop());
      lockers.push({ id, sim, proxy, chaos, agent, dbPath, appliedFile });
    }
    await Promise.all(lockers.map((l) => l.agent.start()));

    let clockOffsetMs = 0;
    const children = () => [cloud, ...lockers.map((l) => l.agent)];
    return {
      dir,
      tdb,
      receiver,
      cloud,
      lockers,
      broker,
      brokerKind: opts.broker,
      startedAt,
      children,
      now: () => sharedClockAt(CLOCK_EPOCH, startedAt, clockOffsetMs),
      async advanceClock(ms) {
        clockOffsetMs += ms;
        await Promise.all(children().map((c) => c.setClockOffset(clockOffsetMs)));
      },
      async close({ keepDir }) {
        await undo();
        if (!keepDir) rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await undo();
    throw err;
  }
}
