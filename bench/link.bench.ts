/**
 * The locker link end to end: events committed to an agent's store (SQLite, synchronous=FULL),
 * published by its link, applied by the cloud (inbox row, the domain's effect and the locker's
 * ack position in one transaction), and acked back to the agent, against a raw MQTT round trip
 * (publish QoS 1 to a locker's down topic, the locker publishes it back on its up topic) through
 * the same embedded broker in the same run. The events are `code.attempt` facts, which the cloud
 * records for operators. Also: heap per locker of the fleet runner (simulator plus agent, and the
 * cloud's side of its link, all in this process). SQLite always; PostgreSQL too with DATABASE_URL.
 */
import { pino } from 'pino';
import mqtt, { type MqttClient } from 'mqtt';
import { startCloud } from '../cloud/src/cloud.js';
import type { Engine } from '../cloud/src/db/database.js';
import { readFleetFile } from '../cloud/src/fleet/provision.js';
import { loadCloudSettings } from '../cloud/src/settings.js';
import { startLockerRig, type LockerRig } from '../demo/fleet-runner.js';
import { disableNagle } from '../shared/src/mqtt-nodelay.js';
import { topics } from '../shared/src/topics.js';
import { openTestDatabase, testEngines } from '../test/helpers/cloud-db.js';
import { benchFleet, lockerPassword, writeFleet } from './bench-fleet.js';
import { collectGarbage, type BenchSuite, type Comparison, type Row } from './harness.js';

const AGENT_LOCKER = 1;
const SPARE_LOCKER = 2;
/** Lockers started for the heap measurement. */
const HEAP_LOCKERS = Array.from({ length: 20 }, (_, i) => 101 + i);
const BATCH = 50;
const CLOUD = { username: 'cloud', password: 'bench-cloud-secret' };

const logger = pino({ level: 'silent' });
const cleanups: (() => Promise<void> | void)[] = [];
const heap: { perLockerKiB: number; rssPerLockerKiB: number } = { perLockerKiB: NaN, rssPerLockerKiB: NaN };

async function until(done: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`link bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function connect(url: string, clientId: string, username: string, password: string): Promise<MqttClient> {
  const client = await mqtt.connectAsync(url, { clientId, username, password, protocolVersion: 4, clean: true, reconnectPeriod: 0 });
  // The same socket setting as the link's own clients, so the baseline is the transport alone.
  disableNagle(client);
  cleanups.push(() => client.endAsync());
  return client;
}

/** Waits for the agent's store to be acked up to a dseq, resolved by the link's receive hook. */
class AckWatch {
  #waiters: { dseq: number; resolve: () => void }[] = [];
  seen(ackedDseq: number): void {
    const ready = this.#waiters.filter((w) => w.dseq <= ackedDseq);
    this.#waiters = this.#waiters.filter((w) => w.dseq > ackedDseq);
    for (const w of ready) w.resolve();
  }
  until(dseq: number): Promise<void> {
    return new Promise((resolve) => this.#waiters.push({ dseq, resolve }));
  }
}

async function comparisonFor(engine: Engine): Promise<Comparison> {
  const tdb = await openTestDatabase(engine);
  const fleetInput = benchFleet([AGENT_LOCKER, SPARE_LOCKER, ...HEAP_LOCKERS], 24);
  const fleetFile = writeFleet(fleetInput);
  cleanups.push(() => tdb.close(), () => fleetFile.remove());
  const settings = loadCloudSettings(
    {},
    {
      config: { host: '127.0.0.1', port: 0, fleetFile: fleetFile.file, logLevel: 'silent' },
      mqtt: { brokerHost: '127.0.0.1', brokerPort: 0, ...CLOUD },
    },
  );
  const cloud = await startCloud(settings, { database: tdb, logger });
  cleanups.push(() => cloud.stop());
  const brokerUrl = cloud.brokerUrl!;
  const fleet = await readFleetFile(fleetFile.file);
  const lockerOf = (id: number) => fleet.lockers.find((l) => l.id === id)!;
  const rig = async (id: number, hooks?: { onReceive(m: { type: string; ackedDseq?: number }): boolean }): Promise<LockerRig> =>
    startLockerRig({
      locker: lockerOf(id),
      mqtt: { url: brokerUrl, password: lockerPassword(id) },
      dataDir: fleetFile.dir,
      screenPort: 0,
      simPort: null,
      logger,
      ...(hooks ? { agentDeps: { link: { hooks } } } : {}),
    });
  const ready = (r: LockerRig) => r.agent.link?.connected === true && r.agent.store.cells.all().length > 0;

  if (engine === 'sqlite') await measureHeap((id) => rig(id), ready);

  const acks = new AckWatch();
  const agent = await rig(AGENT_LOCKER, {
    onReceive(m) {
      if (m.type === 'ack' && m.ackedDseq !== undefined) acks.seen(m.ackedDseq);
      return true;
    },
  });
  cleanups.push(() => agent.stop());
  await until(() => ready(agent), 'the agent to connect and get its layout');
  const emit = (n: number): Promise<void> => {
    let last = 0;
    for (let i = 0; i < n; i++) last = agent.agent.store.outbox.emit({ type: 'code.attempt', kind: 'customer', ok: i % 2 === 0 });
    return acks.until(last);
  };

  // The baseline: a locker's own topics, through the same broker, with no store or domain behind them.
  const locker = await connect(brokerUrl, String(SPARE_LOCKER), String(SPARE_LOCKER), lockerPassword(SPARE_LOCKER));
  await locker.subscribeAsync(topics.down(String(SPARE_LOCKER)), { qos: 1 });
  locker.on('message', (_topic, payload) => void locker.publishAsync(topics.up(String(SPARE_LOCKER)), payload, { qos: 1 }));
  const cloudSide = await connect(brokerUrl, `${CLOUD.username}-bench`, CLOUD.username, CLOUD.password);
  await cloudSide.subscribeAsync(topics.up(String(SPARE_LOCKER)), { qos: 1 });
  let answered: (() => void) | undefined;
  cloudSide.on('message', () => answered?.());

  return {
    name: engine === 'sqlite' ? 'SQLite' : 'PostgreSQL',
    baseline: {
      name: 'raw MQTT round trip (QoS 1, down and back up)',
      fn: () =>
        new Promise<void>((resolve) => {
          answered = resolve;
          cloudSide.publish(topics.down(String(SPARE_LOCKER)), 'ping', { qos: 1 });
        }),
    },
    contenders: [
      { name: '1 event, committed to acked', fn: () => emit(1) },
      { name: `${BATCH} events, committed to acked`, fn: () => emit(BATCH) },
    ],
  };
}

/** Heap and RSS growth, after full collections, of starting HEAP_LOCKERS lockers until each has its layout. */
async function measureHeap(start: (id: number) => Promise<LockerRig>, ready: (r: LockerRig) => boolean): Promise<void> {
  collectGarbage();
  const before = process.memoryUsage();
  const rigs: LockerRig[] = [];
  for (const id of HEAP_LOCKERS) rigs.push(await start(id));
  await until(() => rigs.every(ready), 'every locker to connect and get its layout');
  collectGarbage();
  const after = process.memoryUsage();
  heap.perLockerKiB = (after.heapUsed - before.heapUsed) / HEAP_LOCKERS.length / 1024;
  heap.rssPerLockerKiB = (after.rss - before.rss) / HEAP_LOCKERS.length / 1024;
  for (const r of rigs) await r.stop();
}

async function comparisons(): Promise<Comparison[]> {
  const list: Comparison[] = [];
  for (const engine of testEngines()) list.push(await comparisonFor(engine));
  return list;
}

function notes(rows: readonly Row[]): string[] {
  const lines: string[] = [];
  for (const c of new Set(rows.map((r) => r.comparison))) {
    const of = (prefix: string) => rows.find((r) => r.comparison === c && r.task.startsWith(prefix))!;
    const raw = of('raw');
    const one = of('1 event');
    const batch = of(`${BATCH} events`);
    const perSecond = (BATCH * 1e6) / batch.medianMicros;
    lines.push(
      `${c}: one event takes ${one.ratio.toFixed(1)} raw round trips; in batches of ${BATCH}, ${Math.round(perSecond)} events/s ` +
        `(${(batch.medianMicros / BATCH / raw.medianMicros).toFixed(2)} raw round trips per event, ${Math.round(1e6 / raw.medianMicros)} raw round trips/s)`,
    );
  }
  lines.push(
    `fleet runner: ${heap.perLockerKiB.toFixed(0)} KiB heap and ${heap.rssPerLockerKiB.toFixed(0)} KiB RSS per locker ` +
      `(${HEAP_LOCKERS.length} lockers of 24 cells: simulator, agent with its SQLite store, screen server and link, and the cloud's side of the link)`,
  );
  if (!testEngines().includes('postgres')) lines.push('PostgreSQL skipped: DATABASE_URL is not set');
  return lines;
}

async function teardown(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!();
}

export const suite: BenchSuite = { title: 'link', comparisons, notes, teardown };
