/**
 * Throughput under concurrency. The cloud runs as a process of its own (the core section of its
 * settings, logs at `info` to stdout as in production) and a load process keeps a fixed number of
 * requests in flight; the baseline is an empty Fastify route in another process, measured
 * interleaved with the case in the same run (empty, case, empty, case...), so both see the same
 * machine. Cases:
 * - smartorder/create (distinct valid orders, one parcel, round-robin over lockers of 48 cells) at
 *   16 and 64 in flight, on SQLite and, when DATABASE_URL is reachable, PostgreSQL with one and
 *   with two cloud processes on the same database;
 * - GET /health with LOG_LEVEL=info against warn (what the request log line costs);
 * - locker events applied by the cloud in batches of 50 (bench/link-rig.ts), against a raw MQTT
 *   round trip, on both engines.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../cloud/src/db/database.js';
import { openTestDatabase, testEngines, type TestDatabase } from '../test/helpers/cloud-db.js';
import { benchFleet, tomorrowInMoscow, writeFleet } from './bench-fleet.js';
import { startLinkRig, type Cleanup } from './link-rig.js';
import type { LoadResult, LoadSpec } from './load-client.js';
import type { Figure, Scenario, ScenarioOptions } from './scenario.js';
import type { ServerSpec } from './throughput-server.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..');
const CELLS = 48;
const EVENT_BATCH = 50;
const WARM_UP_MS = 1000;

interface Sizes {
  /** Seconds of load per measurement. */
  seconds: number;
  /** Measurements of each case (each after one of the baseline). */
  rounds: number;
  /** Lockers of 48 cells: enough that the orders of a run find free cells. */
  lockers: number;
  eventBatches: number;
}

const SIZES: Record<'quick' | 'full', Sizes> = {
  quick: { seconds: 2, rounds: 1, lockers: 300, eventBatches: 20 },
  full: { seconds: 5, rounds: 2, lockers: 1000, eventBatches: 100 },
};

interface Server {
  url: string;
  /** CPU time (user and system) the server process has used so far. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts bench/throughput-server.ts; its logs go to /dev/null (the write is still made). */
function startServer(spec: ServerSpec, cleanups: Cleanup[]): Promise<Server> {
  const child: ChildProcess = fork(join(here, 'throughput-server.ts'), [JSON.stringify(spec)], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  cleanups.push(stop);
  const cpuMicros = () =>
    new Promise<number>((resolve) => {
      child.once('message', (m: { cpuMicros: number }) => resolve(m.cpuMicros));
      child.send('cpu');
    });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { url: string }) => resolve({ url: m.url, cpuMicros, stop }));
    child.once('exit', (code) => reject(new Error(`server (${spec.kind}) exited with ${code} before listening`)));
  });
}

/** Runs bench/load-client.ts once and returns what it printed. */
function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const child = fork(join(here, 'load-client.ts'), [JSON.stringify(spec)], { cwd: ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out) as LoadResult);
      else reject(new Error(`load client exited with ${code}`));
    });
  });
}

interface Measured {
  perSecond: number;
  /** Server CPU time per request, µs: robust to other load on the machine, unlike the rate. */
  cpuMicrosPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  statuses: Record<string, number>;
}

const median = (values: number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

interface Case {
  spec: (round: number) => LoadSpec;
  /** The servers the case loads (their CPU time is read before and after). */
  servers: Server[];
}

const cpuOf = async (servers: Server[]) => (await Promise.all(servers.map((s) => s.cpuMicros()))).reduce((a, b) => a + b, 0);

/** Each case measured `rounds` times, the cases interleaved round by round. */
async function interleaved(cases: Record<string, Case>, rounds: number, log: (l: string) => void): Promise<Record<string, Measured>> {
  const results: Record<string, (LoadResult & { cpuMicros: number })[]> = {};
  // A short unmeasured run of each case first, so that the servers' code is compiled by then.
  for (const c of Object.values(cases)) await runLoad({ ...c.spec(-1), durationMs: WARM_UP_MS });
  for (let round = 0; round < rounds; round++) {
    for (const [name, c] of Object.entries(cases)) {
      const before = await cpuOf(c.servers);
      const r = await runLoad(c.spec(round));
      const cpuMicros = (await cpuOf(c.servers)) - before;
      (results[name] ??= []).push({ ...r, cpuMicros });
      log(
        `${name}: ${Math.round(r.perSecond)} req/s, p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, ` +
          `${Math.round(cpuMicros / r.requests)} µs server CPU per request ${JSON.stringify(r.statuses)}`,
      );
    }
  }
  const out: Record<string, Measured> = {};
  for (const [name, list] of Object.entries(results)) {
    const statuses: Record<string, number> = {};
    for (const r of list) for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
    out[name] = {
      perSecond: list.reduce((a, r) => a + r.requests, 0) / list.reduce((a, r) => a + r.seconds, 0),
      cpuMicrosPerRequest: list.reduce((a, r) => a + r.cpuMicros, 0) / list.reduce((a, r) => a + r.requests, 0),
      p50Ms: median(list.map((r) => r.p50Ms)),
      p99Ms: median(list.map((r) => r.p99Ms)),
      requests: list.reduce((a, r) => a + r.requests, 0),
      statuses,
    };
  }
  return out;
}

/** Server CPU per request beside the baseline's: the ratio that other load on the machine does not move. */
function cpuNote(m: Measured, baseline: Measured): string {
  const ratio = baseline.cpuMicrosPerRequest / m.cpuMicrosPerRequest;
  return `server CPU ${Math.round(m.cpuMicrosPerRequest)} µs/request against ${Math.round(baseline.cpuMicrosPerRequest)} (CPU ratio ${ratio.toFixed(3)})`;
}

function statusNote(m: Measured): string {
  const other = Object.entries(m.statuses).filter(([k]) => k !== '200');
  return other.length === 0 ? `${m.requests} requests, all 200` : `${m.requests} requests; ${other.map(([k, v]) => `${v} ${k}`).join(', ')}`;
}

const ENGINE_NAME: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

async function createCases(engine: Engine, sizes: Sizes, log: (l: string) => void): Promise<Figure[]> {
  const cleanups: Cleanup[] = [];
  try {
    const lockers = Array.from({ length: sizes.lockers }, (_, i) => 1001 + i);
    const fleet = writeFleet(benchFleet(lockers, CELLS));
    cleanups.push(() => fleet.remove());
    let tdb: TestDatabase | undefined;
    let location: { databaseUrl?: string; sqlitePath?: string; pgSchema?: string };
    if (engine === 'postgres') {
      tdb = await openTestDatabase('postgres');
      cleanups.push(() => tdb!.close());
      location = tdb.location;
    } else {
      location = { sqlitePath: join(fleet.dir, 'cloud.sqlite') };
    }
    const config = { fleetFile: fleet.file, logLevel: 'info' as const, ...location };
    const empty = await startServer({ kind: 'empty' }, cleanups);
    const first = await startServer({ kind: 'cloud', config }, cleanups);
    // The second process starts after the first has applied the fleet and the migrations.
    const second = engine === 'postgres' ? await startServer({ kind: 'cloud', config }, cleanups) : undefined;
    const date = tomorrowInMoscow();
    const figures: Figure[] = [];
    for (const inFlight of [16, 64]) {
      const durationMs = sizes.seconds * 1000;
      const create = (urls: string[], tag: string) => (round: number): LoadSpec => ({
        urls,
        inFlight,
        durationMs,
        request: { kind: 'smartorder/create', lockers, date, prefix: `T-${tag}-${inFlight}-${round}` },
      });
      const cases: Record<string, Case> = {
        empty: { spec: () => ({ urls: [empty.url], inFlight, durationMs, request: { kind: 'get', path: '/empty' } }), servers: [empty] },
        one: { spec: create([first.url], 'one'), servers: [first] },
      };
      if (second) cases.two = { spec: create([first.url, second.url], 'two'), servers: [first, second] };
      const m = await interleaved(cases, sizes.rounds, log);
      const baseline = { name: `empty Fastify route, ${inFlight} in flight`, value: m.empty!.perSecond, unit: 'req/s' };
      const ratio = m.one!.perSecond / m.empty!.perSecond;
      const goalRatio = engine === 'sqlite' ? 0.1 : 0.05;
      const name = `smartorder/create, ${ENGINE_NAME[engine]}, ${inFlight} in flight`;
      figures.push({
        name,
        value: m.one!.perSecond,
        unit: 'req/s',
        baseline,
        ratio,
        goal: `≥ ${goalRatio} of the empty route`,
        met: ratio >= goalRatio,
        note: `p50 ${m.one!.p50Ms.toFixed(1)} ms; ${cpuNote(m.one!, m.empty!)}; ${statusNote(m.one!)}`,
      });
      const p99Goal = engine === 'sqlite' && inFlight === 64;
      figures.push({
        name: `${name}, p99`,
        value: m.one!.p99Ms,
        unit: 'ms',
        ...(p99Goal ? { goal: 'p99 < 50 ms', met: m.one!.p99Ms < 50 } : {}),
      });
      if (m.two) {
        const gain = m.two.perSecond / m.one!.perSecond;
        figures.push({
          name: `${name}, two cloud processes`,
          value: m.two.perSecond,
          unit: 'req/s',
          baseline: { name: 'one process', value: m.one!.perSecond, unit: 'req/s' },
          ratio: gain,
          goal: 'faster than one process (ratio > 1)',
          met: gain > 1,
          note: `p50 ${m.two.p50Ms.toFixed(1)} ms, p99 ${m.two.p99Ms.toFixed(1)} ms; server CPU ${Math.round(m.two.cpuMicrosPerRequest)} µs/request (both processes); ${statusNote(m.two)}`,
        });
      }
    }
    return figures;
  } finally {
    while (cleanups.length > 0) await cleanups.pop()!();
  }
}

async function healthByLogLevel(sizes: Sizes, log: (l: string) => void): Promise<Figure[]> {
  const cleanups: Cleanup[] = [];
  try {
    const fleet = writeFleet(benchFleet([1001], CELLS));
    cleanups.push(() => fleet.remove());
    const at = (logLevel: 'info' | 'warn') =>
      startServer({ kind: 'cloud', config: { fleetFile: fleet.file, logLevel, sqlitePath: join(fleet.dir, `${logLevel}.sqlite`) } }, cleanups);
    const info = await at('info');
    const warn = await at('warn');
    const inFlight = 16;
    const load = (server: Server): Case => ({
      spec: () => ({ urls: [server.url], inFlight, durationMs: sizes.seconds * 1000, request: { kind: 'get', path: '/health' } }),
      servers: [server],
    });
    const m = await interleaved({ warn: load(warn), info: load(info) }, sizes.rounds, log);
    const ratio = m.info!.perSecond / m.warn!.perSecond;
    return [
      {
        name: `GET /health, SQLite, LOG_LEVEL=info, ${inFlight} in flight`,
        value: m.info!.perSecond,
        unit: 'req/s',
        baseline: { name: 'LOG_LEVEL=warn (no request line)', value: m.warn!.perSecond, unit: 'req/s' },
        ratio,
        goal: '≥ 0.8 of the rate at warn (the request line costs less than the request)',
        met: ratio >= 0.8,
        note: `${cpuNote(m.info!, m.warn!)}; p99 ${m.info!.p99Ms.toFixed(1)} ms at info, ${m.warn!.p99Ms.toFixed(1)} ms at warn`,
      },
    ];
  } finally {
    while (cleanups.length > 0) await cleanups.pop()!();
  }
}

async function lockerEvents(engine: Engine, sizes: Sizes): Promise<Figure[]> {
  const cleanups: Cleanup[] = [];
  try {
    const rig = await startLinkRig(engine, cleanups);
    for (let i = 0; i < 3; i++) await rig.emit(EVENT_BATCH); // warm up
    let eventMs = 0;
    let rawMs = 0;
    for (let i = 0; i < sizes.eventBatches; i++) {
      let t = performance.now();
      await rig.emit(EVENT_BATCH);
      eventMs += performance.now() - t;
      t = performance.now();
      await rig.rawRoundTrip();
      rawMs += performance.now() - t;
    }
    const perSecond = (EVENT_BATCH * sizes.eventBatches * 1000) / eventMs;
    const rawPerSecond = (sizes.eventBatches * 1000) / rawMs;
    const goal = engine === 'postgres' ? { goal: '≥ 2,000 events/s', met: perSecond >= 2000 } : {};
    return [
      {
        name: `locker events, ${ENGINE_NAME[engine]}, batches of ${EVENT_BATCH}, committed to acked`,
        value: perSecond,
        unit: 'events/s',
        baseline: { name: 'raw MQTT round trips', value: rawPerSecond, unit: 'round trips/s' },
        ratio: perSecond / rawPerSecond,
        ...goal,
        note: `${sizes.eventBatches} batches; the agent's commit, the cloud's apply (inbox, effect, ack position) and the ack`,
      },
    ];
  } finally {
    while (cleanups.length > 0) await cleanups.pop()!();
  }
}

async function run({ quick, log }: ScenarioOptions): Promise<Figure[]> {
  const sizes = SIZES[quick ? 'quick' : 'full'];
  const engines = testEngines();
  const figures: Figure[] = [];
  for (const engine of engines) figures.push(...(await createCases(engine, sizes, log)));
  if (!engines.includes('postgres')) {
    figures.push({ name: 'smartorder/create, PostgreSQL', value: NaN, unit: 'req/s', note: 'skipped: DATABASE_URL is not set' });
  }
  figures.push(...(await healthByLogLevel(sizes, log)));
  for (const engine of engines) figures.push(...(await lockerEvents(engine, sizes)));
  return figures;
}

export const scenario: Scenario = { title: 'throughput', run };
