/**
 * The whole locker link on one machine: a cloud from startCloud() (HTTP API, fleet file, the
 * locker link with the domain's real event handling, the embedded broker or the machine's
 * Mosquitto at MQTT_URL) on a throwaway SQLite or PostgreSQL database, and agents from
 * startAgent() against the hardware simulator, each reaching the broker through its own TCP
 * relay that the test can cut. Cloud and agents share one manual clock; the agents' resend
 * timers are moved by hand. Locker ids are random so that runs sharing a Mosquitto never meet.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startAgent, type RunningAgent } from '../../agent/src/agent.js';
import type { ApplyResult } from '../../agent/src/commands/index.js';
import { parseAgentConfig, type AgentConfig } from '../../agent/src/config.js';
import type { ScreenState } from '../../agent/src/screen/server.js';
import type { LinkHooks } from '../../agent/src/sync/index.js';
import { hashMqttPassword } from '../../cloud/src/broker/mqtt-password.js';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { loadConfig } from '../../cloud/src/config.js';
import type { Engine } from '../../cloud/src/db/database.js';
import type { FleetInput } from '../../cloud/src/fleet/fleet-schema.js';
import { createLockerEventApplier } from '../../cloud/src/locker-events/apply-locker-event.js';
import type { LockerLink } from '../../cloud/src/sync/locker-link.js';
import { MqttPart } from '../../cloud/src/sync/mqtt-part.js';
import type { DownMessage, UpMessage } from '../../shared/src/protocol.js';
import { topics } from '../../shared/src/topics.js';
import { startSimulator, type SimulatorHandle } from '../../sim/src/index.js';
import { connectClient } from '../broker/mqtt-client.js';
import { KEYS as FIXTURE_KEYS, orderBody, routeBody } from '../cloud/helpers/fleet-fixtures.js';
import { ManualClock } from '../cloud/helpers/manual-clock.js';
import { type TestDatabase, openTestDatabase } from '../helpers/cloud-db.js';
import { ManualTimers } from './manual-timers.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

export type BrokerKind = 'embedded' | 'external';

const logger = pino({ level: process.env.LOG_LEVEL ?? 'silent' });
const KEYS = { shop: FIXTURE_KEYS.shopA, partner: FIXTURE_KEYS.partner, operator: FIXTURE_KEYS.operator };
export const CLOUD_MQTT = { username: 'cloud', password: 'cloud-link-secret' };
/** Monday 2030-03-04, noon in Moscow. */
export const START = '2030-03-04T09:00:00Z';
export const TODAY = '2030-03-04';
const LOCKERS = 12;
/** Cells of every locker: two small, a medium and a large one on board 0, locks 1-4. */
const CELLS = [
  { id: 1, width: 400, height: 100, board: 0, lock: 1 },
  { id: 2, width: 400, height: 100, board: 0, lock: 2 },
  { id: 3, width: 400, height: 200, board: 0, lock: 3 },
  { id: 4, width: 400, height: 400, board: 0, lock: 4 },
];

const sha = (text: string): string => hashMqttPassword(text);

import { eventually } from '../helpers/eventually.js';

export { eventually };

export interface CloudLocker {
  next_cseq: number;
  applied_cseq: number;
  acked_dseq: number;
  presence_conn: number;
  online: number;
}

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers loosely
  body: any;
}

/** One agent with its simulator and relay; what its link did is recorded through the link's hooks. */
export interface AgentRig {
  readonly lockerId: number;
  readonly sim: SimulatorHandle;
  readonly proxy: TcpProxy;
  readonly timers: ManualTimers;
  readonly config: AgentConfig;
  agent: RunningAgent;
  /** Every command that went through applyCommand, over every life of the agent. */
  readonly applied: { cseq: number; status: ApplyResult['status'] }[];
  /** cseq and status of every snapshot applied. */
  readonly snapshots: { cseq: number; status: string }[];
  /** Every up message handed to the broker (not the dropped ones). */
  readonly published: UpMessage[];
  /** Up messages dropped by `drop`. */
  readonly dropped: UpMessage[];
  /** Every down message received (also the dropped ones). */
  readonly received: DownMessage[];
  /** Most events ever sent and not acked at the time of a send. */
  maxInFlight: number;
  /** While set, up messages it matches are dropped as if lost on the way. */
  drop: ((m: UpMessage) => boolean) | null;
  /** While set, down messages it matches are dropped as if lost on the way. */
  dropDown: ((m: DownMessage) => boolean) | null;
  post(path: string, body?: unknown): Promise<ScreenState>;
  until(pred: (s: ScreenState) => boolean, what: string): Promise<ScreenState>;
  /** Stops the agent; its SQLite file, the simulator and the relay stay. */
  stopAgent(): Promise<void>;
  /** Starts the agent again on the same file. */
  startAgent(): Promise<void>;
  /** Copies the agent's SQLite file aside (agent stopped) / puts the copy back. */
  backup(): void;
  restore(): void;
}

export interface LinkWorld {
  readonly clock: ManualClock;
  readonly cloud: RunningCloud;
  readonly tdb: TestDatabase;
  /** The cloud's locker link (for its poll and log trimming). */
  readonly link: LockerLink;
  readonly brokerUrl: string;
  readonly broker: BrokerKind;
  /** The next unused locker of the fleet. */
  takeLocker(): number;
  startAgent(lockerId: number): Promise<AgentRig>;
  call(method: string, path: string, body: unknown, key?: 'shop' | 'partner' | 'operator'): Promise<Answer>;
  /** Creates a reserved one-parcel order for today; returns its barcode. */
  createOrder(lockerId: number, externalId: string): Promise<string>;
  /** A route sheet for today; returns the courier's access code. */
  createRoute(lockerId: number, courier: string): Promise<string>;
  locker(lockerId: number): Promise<CloudLocker>;
  /** The cloud's order state, read through the order detail API. */
  orderState(barcode: string, courierCode: string): Promise<number>;
  /** Events the cloud has in its inbox for a locker, in dseq order. */
  inbox(lockerId: number): Promise<{ dseq: number; type: string; body: string }[]>;
  /** Until the cloud and the agent agree on both streams and the agent is online. */
  converged(rig: AgentRig): Promise<CloudLocker>;
  close(): Promise<void>;
}

/** Optional parts of the world: the marketplace's notification receiver (the fleet has none without it). */
export interface LinkWorldOptions {
  receiver?: { url: string; login: string; password: string };
}

function fleet(base: number, options: LinkWorldOptions): { fleet: FleetInput; passwords: Map<number, string> } {
  const passwords = new Map<number, string>();
  const lockers = Array.from({ length: LOCKERS }, (_, i) => {
    const id = base + i + 1;
    const password = `locker-${id}-secret`;
    passwords.set(id, password);
    return {
      id,
      name: `Locker ${id}`,
      timezone: 'Europe/Moscow',
      depth: 500,
      location: { id, city: 'Moscow', street: 'Test street', house: String(i + 1), latitude: 55.75, longitude: 37.61, fullAddress: `Moscow, Test street, ${i + 1}` },
      mqttPasswordSha256: sha(password),
      cells: CELLS,
    };
  });
  return {
    passwords,
    fleet: {
      lockers,
      marketplaces: [
        { id: 'shop-a', name: 'Shop A', apiKeySha256: [sha(KEYS.shop)], storagePeriodHours: 72, ...(options.receiver ? { receiver: options.receiver } : {}) },
      ],
      partners: [{ id: 'courier-co', name: 'Courier Co', apiKeySha256: [sha(KEYS.partner)], marketplaces: ['shop-a'], lockers: lockers.map((l) => l.id) }],
      operators: [{ name: 'ops', apiKeySha256: [sha(KEYS.operator)] }],
    },
  };
}

export async function openLinkWorld(engine: Engine, broker: BrokerKind, options: LinkWorldOptions = {}): Promise<LinkWorld> {
  const tdb = await openTestDatabase(engine);
  const dir = mkdtempSync(join(tmpdir(), 'link-world-'));
  const base = randomInt(1_000, 1_000_000) * 100;
  const { fleet: fleetInput, passwords } = fleet(base, options);
  const fleetFile = join(dir, 'fleet.json');
  writeFileSync(fleetFile, JSON.stringify(fleetInput));
  const clock = new ManualClock(START);
  const external = broker === 'external' ? process.env.MQTT_URL : undefined;
  if (broker === 'external' && !external) throw new Error('MQTT_URL is not set');

  let part: MqttPart | undefined;
  let cloud: RunningCloud;
  try {
    cloud = await startCloud(loadConfig({}, { port: 0, host: '127.0.0.1', fleetFile, logLevel: 'silent' }), {
      database: tdb,
      clock,
      logger,
      parts: [
        (deps) =>
          (part = new MqttPart(
            { url: external, brokerHost: '127.0.0.1', brokerPort: 0, ...CLOUD_MQTT, clientId: `cloud-${base}` },
            {
              db: deps.cdb,
              signals: deps.signals,
              clock: deps.clock,
              logger,
              applyEvent: createLockerEventApplier(deps),
              reservationGraceMinutes: deps.config.reservationGraceMinutes,
              // The poll and the trim run when a test calls them, on the manual clock.
              options: { pollIntervalMs: 3_600_000, trimIntervalMs: 3_600_000, logRetentionMs: 60_000, reconnectPeriodMs: 100 },
            },
          )),
      ],
    });
  } catch (err) {
    await tdb.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const mqttPart = part!;
  const brokerUrl = external ?? mqttPart.brokerUrl!;
  const rigs: AgentRig[] = [];
  let taken = 0;

  const call = async (method: string, path: string, body: unknown, key: 'shop' | 'partner' | 'operator' = 'shop'): Promise<Answer> => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (key === 'shop') headers['X-Service-Api-Key'] = KEYS.shop;
    else if (key === 'operator') headers['X-Operator-Api-Key'] = KEYS.operator;
    else headers['Partner-Api-Key'] = KEYS.partner;
    const res = await fetch(`${cloud.url}${path}`, { method, headers, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
  };

  const locker = (lockerId: number): Promise<CloudLocker> =>
    tdb.db
      .selectFrom('lockers')
      .select(['next_cseq', 'applied_cseq', 'acked_dseq', 'presence_conn', 'online'])
      .where('id', '=', lockerId)
      .executeTakeFirstOrThrow();

  const world: LinkWorld = {
    clock,
    cloud,
    tdb,
    link: mqttPart.link!,
    brokerUrl,
    broker,
    takeLocker() {
      if (taken >= LOCKERS) throw new Error('the test fleet has no locker left');
      return base + ++taken;
    },
    async startAgent(lockerId) {
      const rig = await startRig(lockerId, passwords.get(lockerId)!, brokerUrl, clock, dir);
      rigs.push(rig);
      return rig;
    },
    call,
    async createOrder(lockerId, externalId) {
      const a = await call('PUT', '/api/v4/auth/delivery/smartorder/create', orderBody(externalId, { postamatId: lockerId, dateDelivery: TODAY }));
      if (a.status !== 200) throw new Error(`order ${externalId}: ${a.status} ${JSON.stringify(a.body)}`);
      return `${externalId}-P1`;
    },
    async createRoute(lockerId, courier) {
      const n = randomInt(1e7);
      const a = await call(
        'PUT',
        '/api/v1/auth/couriers/courier-with-route',
        routeBody(
          { externalId: courier, email: `${courier}-${n}@example.ru`, phone: `+7999${String(n).padStart(7, '0')}` },
          { date: TODAY, postamatIds: [lockerId], externalId: `route-${courier}-${n}` },
        ),
        'partner',
      );
      if (a.status !== 200) throw new Error(`route of ${courier}: ${a.status} ${JSON.stringify(a.body)}`);
      return (a.body as { postamatAccessCode: string }).postamatAccessCode;
    },
    locker,
    async orderState(barcode, courierCode) {
      const a = await call('POST', '/api/v4/auth/delivery/order/detail', { barcode, postamatAccessCode: courierCode });
      if (a.status !== 200) throw new Error(`order detail of ${barcode}: ${a.status} ${JSON.stringify(a.body)}`);
      return (a.body as { state: number }).state;
    },
    inbox(lockerId) {
      return tdb.db.selectFrom('inbox_events').select(['dseq', 'type', 'body']).where('locker_id', '=', lockerId).orderBy('dseq').execute();
    },
    converged(rig) {
      return eventually(async () => {
        const row = await locker(rig.lockerId);
        const store = rig.agent.store;
        const last = store.outbox.lastDseq();
        const agree =
          rig.agent.link?.connected === true &&
          row.online === 1 &&
          store.appliedCseq() === row.next_cseq - 1 &&
          row.applied_cseq === row.next_cseq - 1 &&
          row.acked_dseq === last &&
          store.ackedDseq() === last;
        return agree ? row : null;
      }, `agent ${rig.lockerId} and the cloud to agree`);
    },
    async close() {
      for (const rig of rigs) {
        await rig.agent.stop();
        await rig.proxy.stop();
        await rig.sim.stop();
      }
      await cloud.stop();
      if (external) {
        // Leave no retained presence behind on the shared broker.
        const c = await connectClient(external, { clientId: `cleanup-${base}`, username: 'cleanup', password: 'x' });
        for (let i = 1; i <= LOCKERS; i++) await c.publish(topics.presence(String(base + i)), '', { retain: true });
        await c.end();
      }
      await tdb.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return world;
}

async function startRig(lockerId: number, password: string, brokerUrl: string, clock: ManualClock, dir: string): Promise<AgentRig> {
  const sim = await startSimulator({ buses: [{ name: 'main', family: 'kerong-cu48', boards: 1 }], scanner: false });
  const proxy = new TcpProxy(brokerUrl);
  await proxy.start();
  const dbPath = join(dir, `agent-${lockerId}.sqlite`);
  const config = parseAgentConfig({
    lockerId: String(lockerId),
    // A frame timeout long beside a busy machine's stalls: a short one made boards flap offline under load.
    buses: [{ ...sim.busConfig('main', 'tcp'), frameTimeoutMs: 1_000, retries: 1, confirmDelayMs: 10, confirmReads: 2, openAttempts: 2, reconnectMinMs: 50 }],
    mqtt: { url: proxy.url, password, keepaliveSec: 5, reconnectMinMs: 20, reconnectMaxMs: 200, resendAfterMs: 20_000, batchSize: 3, windowSize: 5, maxMessageBytes: 65_536 },
    dbPath,
    screen: { port: 0, defaultLanguage: 'en' },
    doors: { pollMs: 30, leftOpenMs: 3_600_000 },
  });
  const timers = new ManualTimers(clock);
  const applied: AgentRig['applied'] = [];
  const published: UpMessage[] = [];
  const dropped: UpMessage[] = [];
  const received: DownMessage[] = [];
  const snapshots: AgentRig['snapshots'] = [];
  const hooks: LinkHooks = {
    beforePublish(m) {
      if (m.type === 'events') rig.maxInFlight = Math.max(rig.maxInFlight, m.items.at(-1)!.dseq - rig.agent.store.ackedDseq());
      if (rig.drop?.(m)) {
        dropped.push(m);
        return false;
      }
      published.push(m);
      return true;
    },
    onReceive(m) {
      received.push(m);
      return !rig.dropDown?.(m);
    },
    afterApply(command, result) {
      applied.push({ cseq: command.cseq, status: result.status });
    },
    afterSnapshot(snapshot, result) {
      snapshots.push({ cseq: snapshot.cseq, status: result.status });
    },
  };
  const launch = () => startAgent(config, { clock, logger, link: { hooks, timers } });
  const screen = async (path: string, init?: RequestInit): Promise<ScreenState> => {
    const res = await fetch(`${rig.agent.screenUrl}${path}`, init);
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as ScreenState;
  };
  const files = [dbPath, `${dbPath}-wal`, `${dbPath}-shm`];
  const rig: AgentRig = {
    lockerId,
    sim,
    proxy,
    timers,
    config,
    agent: await launch(),
    applied,
    snapshots,
    published,
    dropped,
    received,
    maxInFlight: 0,
    drop: null,
    dropDown: null,
    post: (path, body) =>
      screen(path, {
        method: 'POST',
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    async until(pred, what) {
      return eventually(async () => {
        const s = await screen('/api/state');
        return pred(s) ? s : null;
      }, what);
    },
    stopAgent: () => rig.agent.stop(),
    async startAgent() {
      rig.agent = await launch();
    },
    backup() {
      for (const f of files) if (existsSync(f)) copyFileSync(f, `${f}.bak`);
    },
    restore() {
      for (const f of files) {
        rmSync(f, { force: true });
        if (existsSync(`${f}.bak`)) copyFileSync(`${f}.bak`, f);
      }
    },
  };
  return rig;
}
