/**
 * Throughput of reservations under concurrency, and what they cost. Every server runs as a process
 * of its own (the cloud: the core section of its settings, logs at `info` to stdout as in
 * production), a load process keeps 32 requests in flight, and the baseline is an empty route on
 * Node's own HTTP server in another process, measured interleaved with the cases in the same run
 * (empty, case, empty, case...), so all see the same machine. Figures:
 * - smartorder/create (distinct valid orders, one parcel, round-robin over many lockers) on SQLite
 *   with lockers of 48 cells and of 400 cells: rate against the empty route, p99, the cloud's CPU
 *   per reservation, and the rate of the large lockers against the small ones;
 * - /health and /metrics answered while those reservations run, against the same probes idle;
 * - what the request log line and tracing (to an OTLP endpoint) add to a reservation's CPU;
 * - on PostgreSQL (DATABASE_URL): the same with one cloud process, the database server's CPU per
 *   reservation, and two processes on one database: their rate, the lock waits per reservation,
 *   the share of aborted transactions and of reservations that found their view stale;
 * - locker events applied by the cloud in batches of 50 (bench/link-rig.ts), on both engines.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../cloud/src/db/database.js';
import { openTestDatabase, testEngines } from '../test/helpers/cloud-db.js';
import { benchFleet, tomorrowInMoscow, writeFleet } from './bench-fleet.js';
import { startLinkRig, type Cleanup } from './link-rig.js';
import type { LoadResult, LoadSpec } from './load-client.js';
import { postgresCpuMicros, watchPostgres } from './postgres-watch.js';
import type { Figure, Scenario, ScenarioOptions } from './scenario.js';
import type { ServerSpec } from './throughput-server.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..');
const IN_FLIGHT = 32;
const EVENT_BATCH = 50;
const WARM_UP_MS = 1000;

interface Sizes {
  /** Seconds of load per measurement. */
  seconds: number;
  /** Measurements of each case (each after one of the baseline). */
  rounds: number;
  /** Lockers of 48 and of 400 cells: enough that the orders of a run find free cells. */
  small: number;
  large: number;
  eventBatches: number;
}

const SIZES: Record<'quick' | 'full', Sizes> = {
  quick: { seconds: 3, rounds: 1, small: 400, large: 50, eventBatches: 20 },
  full: { seconds: 5, rounds: 2, small: 1200, large: 150, eventBatches: 100 },
};

interface Server {
  url: string;
  /** CPU time (user and system) the server process has used so far. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

/** Node options of the server processes (ScenarioOptions.serverNodeOptions), set once per run. */
let serverNodeOptions: string[] = [];

/** Starts bench/throughput-server.ts; its logs go to /dev/null (the write is still made). */
function startServer(spec: ServerSpec, cleanups: Cleanup[]): Promise<Server> {
  const child: ChildProcess = fork(join(here, 'throughput-server.ts'), [JSON.stringify(spec)], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx', ...serverNodeOptions],
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
  /** The database server's CPU per request (PostgreSQL on this machine), µs. */
  dbCpuMicrosPerRequest?: number;
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

const percentile = (values: number[], p: number): number => {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};

interface Case {
  spec: (round: number) => LoadSpec;
  /** The servers the case loads (their CPU time is read before and after). */
  servers: Server[];
  /** Before each measurement, untimed (a warm-up that touches every locker once). */
  warmUp?: LoadSpec;
  /** Whether the database server's CPU is read too (PostgreSQL on this machine). */
  databaseCpu?: boolean;
  /** Runs beside each measurement (probes, watches); resolves what it saw when asked to stop. */
  beside?: () => { stop(): Promise<void> };
}

const cpuOf = async (servers: Server[]) => (await Promise.all(servers.map((s) => s.cpuMicros()))).reduce((a, b) => a + b, 0);

/** Each case measured `rounds` times, the cases interleaved round by round. */
async function interleaved(cases: Record<string, Case>, rounds: number, log: (l: string) => void): Promise<Record<string, Measured>> {
  const results: Record<string, (LoadResult & { cpuMicros: number; dbCpuMicros: number })[]> = {};
  for (const c of Object.values(cases)) {
    if (c.warmUp) await runLoad(c.warmUp);
    // A short unmeasured run of each case, so that the servers' code is compiled by then.
    await runLoad({ ...c.spec(-1), durationMs: WARM_UP_MS });
  }
  for (let round = 0; round < rounds; round++) {
    for (const [name, c] of Object.entries(cases)) {
      const before = await cpuOf(c.servers);
      const dbBefore = c.databaseCpu ? postgresCpuMicros() : 0;
      const beside = c.beside?.();
      const r = await runLoad(c.spec(round));
      await beside?.stop();
      const cpuMicros = (await cpuOf(c.servers)) - before;
      const dbCpuMicros = c.databaseCpu ? postgresCpuMicros() - dbBefore : 0;
      (results[name] ??= []).push({ ...r, cpuMicros, dbCpuMicros });
      log(
        `${name}: ${Math.round(r.perSecond)} req/s, p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, ` +
          `${Math.round(cpuMicros / r.requests)} µs server CPU per request${c.databaseCpu ? `, ${Math.round(dbCpuMicros / r.requests)} µs database` : ''} ${JSON.stringify(r.statuses)}`,
      );
    }
  }
  const out: Record<string, Measured> = {};
  for (const [name, list] of Object.entries(results)) {
    const statuses: Record<string, number> = {};
    for (const r of list) for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
    const requests = list.reduce((a, r) => a + r.requests, 0);
    out[name] = {
      perSecond: requests / list.reduce((a, r) => a + r.seconds, 0),
      cpuMicrosPerRequest: list.reduce((a, r) => a + r.cpuMicros, 0) / requests,
      ...(cases[name]?.databaseCpu ? { dbCpuMicrosPerRequest: list.reduce((a, r) => a + r.dbCpuMicros, 0) / requests } : {}),
      p50Ms: median(list.map((r) => r.p50Ms)),
      p99Ms: median(list.map((r) => r.p99Ms)),
      requests,
      statuses,
    };
  }
  return out;
}

function statusNote(m: Measured): string {
  const other = Object.entries(m.statuses).filter(([k]) => k !== '200');
  return other.length === 0 ? `${m.requests} requests, all 200 and reserved` : `${m.requests} requests; ${other.map(([k, v]) => `${v} ${k}`).join(', ')}`;
}

const ENGINE_NAME: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
const empty = (server: Server, durationMs: number): Case => ({
  spec: () => ({ urls: [server.url], inFlight: IN_FLIGHT, durationMs, request: { kind: 'get', path: '/empty' } }),
  servers: [server],
});

/** `GET /health` at full load: what a probe costs the engine's probe connection. */
const health = (server: Server, durationMs: number): Case => ({
  spec: () => ({ urls: [server.url], inFlight: IN_FLIGHT, durationMs, request: { kind: 'get', path: '/health' } }),
  servers: [server],
});

const HEALTH_RATE = (engine: string) => `GET /health, ${engine}, ${IN_FLIGHT} in flight`;

function healthFigure(engine: string, m: Record<string, Measured>): Figure {
  const h = m.health!;
  return {
    name: HEALTH_RATE(engine),
    value: h.perSecond,
    unit: 'req/s',
    baseline: { name: 'empty route (node:http)', value: m.empty!.perSecond, unit: 'req/s' },
    ratio: h.perSecond / m.empty!.perSecond,
    note: `p99 ${h.p99Ms.toFixed(1)} ms; ${Math.round(h.cpuMicrosPerRequest)} µs server CPU a probe; ${statusNote(h)}`,
  };
}

function lockerIds(count: number, first: number): number[] {
  return Array.from({ length: count }, (_, i) => first + i);
}

function creates(urls: string[], lockers: number[], tag: string, durationMs: number): Pick<Case, 'spec' | 'warmUp'> {
  const date = tomorrowInMoscow();
  return {
    spec: (round) => ({ urls, inFlight: IN_FLIGHT, durationMs, request: { kind: 'smartorder/create', lockers, date, prefix: `T-${tag}-${round}` } }),
    // Every locker once: the measured requests find the processes' views of the lockers.
    warmUp: { urls, inFlight: IN_FLIGHT, durationMs: 600_000, requests: lockers.length, request: { kind: 'smartorder/create', lockers, date, prefix: `T-${tag}-warm` } },
  };
}

/** A cloud on a fleet of `count` lockers of `cells` cells each (ids from `first`), on SQLite or a PostgreSQL schema. */
async function fleetDatabase(engine: Engine, lockers: number[], cells: number, cleanups: Cleanup[]) {
  const fleet = writeFleet(benchFleet(lockers, cells));
  cleanups.push(() => fleet.remove());
  if (engine === 'postgres') {
    const tdb = await openTestDatabase('postgres');
    cleanups.push(() => tdb.close());
    return { fleetFile: fleet.file, ...tdb.location };
  }
  return { fleetFile: fleet.file, sqlitePath: join(fleet.dir, 'cloud.sqlite') };
}

/** Polls /health and /metrics while a measurement runs; the latencies it saw. */
function probesBeside(url: string, seen: { health: number[]; metrics: number[] }): () => { stop(): Promise<void> } {
  return () => {
    let stopped = false;
    const poll = async (path: string, everyMs: number, into: number[]): Promise<void> => {
      while (!stopped) {
        const started = performance.now();
        const res = await fetch(`${url}${path}`);
        await res.text();
        if (res.status === 200) into.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    };
    const loops = [poll('/health', 25, seen.health), poll('/metrics', 250, seen.metrics)];
    return {
      async stop() {
        stopped = true;
        await Promise.all(loops);
      },
    };
  };
}

async function idleProbes(url: string): Promise<{ health: number[]; metrics: number[] }> {
  const seen = { health: [] as number[], metrics: [] as number[] };
  for (let i = 0; i < 40; i++) {
    for (const [path, into] of [['/health', seen.health], ['/metrics', seen.metrics]] as const) {
      const started = performance.now();
      await (await fetch(`${url}${path}`)).text();
      into.push(performance.now() - started);
    }
  }
  return seen;
}

async function sqliteCreates(sizes: Sizes, log: (l: string) => void): Promise<Figure[]> {
  const cleanups: Cleanup[] = [];
  try {
    const durationMs = sizes.seconds * 1000;
    const small = lockerIds(sizes.small, 1001);
    const large = lockerIds(sizes.large, 1001);
    const baseline = await startServer({ kind: 'empty' }, cleanups);
    const cloud48 = await startServer({ kind: 'cloud', config: { ...(await fleetDatabase('sqlite', small, 48, cleanups)), logLevel: 'info' } }, cleanups);
    const cloud400 = await startServer({ kind: 'cloud', config: { ...(await fleetDatabase('sqlite', large, 400, cleanups)), logLevel: 'info' } }, cleanups);
    const idle = await idleProbes(cloud48.url);
    const underLoad = { health: [] as number[], metrics: [] as number[] };
    const m = await interleaved(
      {
        empty: empty(baseline, durationMs),
        cells48: { ...creates([cloud48.url], small, 's48', durationMs), servers: [cloud48], beside: probesBeside(cloud48.url, underLoad) },
        cells400: { ...creates([cloud400.url], large, 's400', durationMs), servers: [cloud400] },
        health: health(cloud48, durationMs),
      },
      sizes.rounds,
      log,
    );
    const base = { name: `empty route (node:http), ${IN_FLIGHT} in flight`, value: m.empty!.perSecond, unit: 'req/s' };
    const figures: Figure[] = [];
    for (const [key, cells] of [['cells48', 48], ['cells400', 400]] as const) {
      const c = m[key]!;
      const ratio = c.perSecond / m.empty!.perSecond;
      const name = `smartorder/create, SQLite, lockers of ${cells} cells, ${IN_FLIGHT} in flight`;
      figures.push({
        name,
        value: c.perSecond,
        unit: 'req/s',
        baseline: base,
        ratio,
        goal: '≥ 0.10 of the empty route',
        met: ratio >= 0.1,
        note: `p50 ${c.p50Ms.toFixed(1)} ms; ${statusNote(c)}`,
      });
      figures.push({ name: `${name}, p99`, value: c.p99Ms, unit: 'ms', goal: 'p99 < 50 ms', met: c.p99Ms < 50 });
      figures.push({
        name: `${name}, cloud CPU per reservation`,
        value: c.cpuMicrosPerRequest,
        unit: 'µs',
        baseline: { name: 'empty route (node:http)', value: m.empty!.cpuMicrosPerRequest, unit: 'µs' },
        ratio: c.cpuMicrosPerRequest / m.empty!.cpuMicrosPerRequest,
        note: 'user and system time of the whole process (its threads: the SQLite checkpoints, the garbage collector) over its requests; the database runs in it',
      });
    }
    const sizeRatio = m.cells400!.perSecond / m.cells48!.perSecond;
    figures.push({
      name: 'smartorder/create, SQLite, lockers of 400 cells against 48',
      value: m.cells400!.perSecond,
      unit: 'req/s',
      baseline: { name: 'lockers of 48 cells', value: m.cells48!.perSecond, unit: 'req/s' },
      ratio: sizeRatio,
      goal: "a locker's size changes the rate by at most 20%",
      met: sizeRatio >= 0.8 && sizeRatio <= 1.25,
    });
    figures.push(healthFigure('SQLite', m));
    const createP50 = m.cells48!.p50Ms;
    for (const [path, key] of [['/health', 'health'], ['/metrics', 'metrics']] as const) {
      const p99 = percentile(underLoad[key], 0.99);
      figures.push({
        name: `GET ${path} while reservations run (SQLite, 48 cells), p99`,
        value: p99,
        unit: 'ms',
        baseline: { name: 'the same probe idle, p99', value: percentile(idle[key], 0.99), unit: 'ms' },
        goal: "below the reservations' p50 under the same load (it waits for no reservation)",
        met: p99 < createP50,
        note: `${underLoad[key].length} probes, p50 ${percentile(underLoad[key], 0.5).toFixed(1)} ms; reservations' p50 ${createP50.toFixed(1)} ms`,
      });
    }
    return figures;
  } finally {
    while (cleanups.length > 0) await cleanups.pop()!();
  }
}

/** A sink for the cloud's OTLP/HTTP exports: answers 200 to everything and counts what it got. */
async function otlpSink(cleanups: Cleanup[]): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

async function loggingAndTracing(sizes: Sizes, log: (l: string) => void): Promise<Figure[]> {
  const cleanups: Cleanup[] = [];
  try {
    const durationMs = sizes.seconds * 1000;
    const lockers = lockerIds(sizes.small, 1001);
    const sink = await otlpSink(cleanups);
    const cloud = async (logLevel: 'warn' | 'info', traced: boolean) =>
      startServer({ kind: 'cloud', config: { ...(await fleetDatabase('sqlite', lockers, 48, cleanups)), logLevel }, ...(traced ? { otlpEndpoint: sink.url } : {}) }, cleanups);
    const servers = { quiet: await cloud('warn', false), logged: await cloud('info', false), traced: await cloud('warn', true), told: await cloud('info', true) };
    const m = await interleaved(
      Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, { ...creates([server.url], lockers, name, durationMs), servers: [server] }])),
      sizes.rounds,
      log,
    );
    const quiet = m.quiet!.cpuMicrosPerRequest;
    const share = (name: string) => (m[name]!.cpuMicrosPerRequest / quiet - 1) * 100;
    const extra = share('told') / 100;
    return [
      {
        name: 'request log line and tracing, share of a reservation’s CPU (SQLite, 48 cells)',
        value: extra * 100,
        unit: '%',
        baseline: { name: 'LOG_LEVEL=warn, no tracing', value: quiet, unit: 'µs a reservation' },
        goal: '< 10%',
        met: extra < 0.1,
        note: `LOG_LEVEL=info with spans exported over OTLP/HTTP: ${Math.round(m.told!.cpuMicrosPerRequest)} µs a reservation; rates ${Math.round(m.told!.perSecond)} against ${Math.round(m.quiet!.perSecond)} req/s; ${sink.requests()} exports received`,
      },
      { name: 'the request log line alone, share of a reservation’s CPU', value: share('logged'), unit: '%', baseline: { name: 'LOG_LEVEL=warn', value: quiet, unit: 'µs a reservation' }, note: `LOG_LEVEL=info: ${Math.round(m.logged!.cpuMicrosPerRequest)} µs a reservation` },
      { name: 'tracing alone, share of a reservation’s CPU', value: share('traced'), unit: '%', baseline: { name: 'no tracing', value: quiet, unit: 'µs a reservation' }, note: `spans exported over OTLP/HTTP: ${Math.round(m.traced!.cpuMicrosPerRequest)} µs a reservation` },
    ];
  } finally {
    while (cleanups.length > 0) await cleanups.pop()!();
  }
}

/** Reservations found their locker's view current (memory) or read it again (database), from /metrics. */
async function occupancyReads(urls: string[]): Promise<{ memory: number; database: number }> {
  const sum = { memory: 0, database: 0 };
  for (const url of urls) {
    const text = await (await fetch(`${url}/metrics`)).text();
    for (const source of ['memory', 'database'] as const) {
      sum[source] += Number(new RegExp(`^cloud_reservation_occupancy_reads_total\\{source="${source}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    }
  }
  return sum;
}

async function postgresCreates(sizes: Sizes, log: (l: string) => void): Promise<Figure[]> {
  const cleanups: Cleanup[] = [];
  try {
    const durationMs = sizes.seconds * 1000;
    const lockers = lockerIds(sizes.small, 1001);
    const baseline = await startServer({ kind: 'empty' }, cleanups);
    const location = await fleetDatabase('postgres', lockers, 48, cleanups);
    const config = { ...location, logLevel: 'info' as const };
    const first = await startServer({ kind: 'cloud', config }, cleanups);
    // The second process starts after the first has applied the fleet and the migrations.
    const second = await startServer({ kind: 'cloud', config }, cleanups);
    let watched: { lockWaits: number; commits: number; rollbacks: number; reservations: number } | undefined;
    let reads = { memory: 0, database: 0 };
    const watchBeside = () => {
      const started = (async () => ({ watch: await watchPostgres(location.databaseUrl!), reads: await occupancyReads([first.url, second.url]) }))();
      return {
        async stop() {
          const { watch, reads: before } = await started;
          const seen = await watch.stop();
          const after = await occupancyReads([first.url, second.url]);
          const round = { memory: after.memory - before.memory, database: after.database - before.database };
          reads = { memory: reads.memory + round.memory, database: reads.database + round.database };
          const reservations = round.memory + round.database;
          watched = {
            lockWaits: (watched?.lockWaits ?? 0) + seen.lockWaits,
            commits: (watched?.commits ?? 0) + seen.commits,
            rollbacks: (watched?.rollbacks ?? 0) + seen.rollbacks,
            reservations: (watched?.reservations ?? 0) + reservations,
          };
        },
      };
    };
    const m = await interleaved(
      {
        empty: empty(baseline, durationMs),
        one: { ...creates([first.url], lockers, 'pg1', durationMs), servers: [first], databaseCpu: true },
        two: { ...creates([first.url, second.url], lockers, 'pg2', durationMs), servers: [first, second], databaseCpu: true, beside: watchBeside },
        health: health(first, durationMs),
      },
      sizes.rounds,
      log,
    );
    const one = m.one!;
    const two = m.two!;
    const ratio = one.perSecond / m.empty!.perSecond;
    const name = `smartorder/create, PostgreSQL, lockers of 48 cells, ${IN_FLIGHT} in flight`;
    const w = watched!;
    return [
      {
        name,
        value: one.perSecond,
        unit: 'req/s',
        baseline: { name: `empty route (node:http), ${IN_FLIGHT} in flight`, value: m.empty!.perSecond, unit: 'req/s' },
        ratio,
        goal: '≥ 0.05 of the empty route',
        met: ratio >= 0.05,
        note: `p50 ${one.p50Ms.toFixed(1)} ms; ${statusNote(one)}`,
      },
      { name: `${name}, p99`, value: one.p99Ms, unit: 'ms', goal: 'p99 < 100 ms', met: one.p99Ms < 100 },
      healthFigure('PostgreSQL', m),
      {
        name: `${name}, cloud CPU per reservation`,
        value: one.cpuMicrosPerRequest,
        unit: 'µs',
        baseline: { name: 'empty route (node:http)', value: m.empty!.cpuMicrosPerRequest, unit: 'µs' },
        ratio: one.cpuMicrosPerRequest / m.empty!.cpuMicrosPerRequest,
      },
      {
        name: `${name}, database server CPU per reservation`,
        value: one.dbCpuMicrosPerRequest ?? NaN,
        unit: 'µs',
        note: 'every postgres process of this machine, from /proc (whatever else the server ran meanwhile)',
      },
      {
        name: `${name}, two cloud processes`,
        value: two.perSecond,
        unit: 'req/s',
        baseline: { name: 'one process', value: one.perSecond, unit: 'req/s' },
        ratio: two.perSecond / one.perSecond,
        note: `both processes, the database and the load share two cores, so a second process has no core of its own; p99 ${two.p99Ms.toFixed(1)} ms; ${Math.round(two.cpuMicrosPerRequest)} µs cloud CPU and ${Math.round(two.dbCpuMicrosPerRequest ?? NaN)} µs database CPU per reservation; ${statusNote(two)}`,
      },
      {
        name: 'two cloud processes on one PostgreSQL, lock waits per reservation',
        value: w.lockWaits / Math.max(1, w.reservations),
        unit: 'waits',
        goal: '< 0.05 (they do not contend)',
        met: w.lockWaits / Math.max(1, w.reservations) < 0.05,
        note: `${w.lockWaits} waits seen sampling pg_locks every 5 ms over ${w.reservations} reservations`,
      },
      {
        name: 'two cloud processes on one PostgreSQL, aborted transactions',
        value: (100 * w.rollbacks) / Math.max(1, w.commits + w.rollbacks),
        unit: '%',
        goal: '< 1%',
        met: w.rollbacks / Math.max(1, w.commits + w.rollbacks) < 0.01,
        note: `${w.rollbacks} rolled back of ${w.commits + w.rollbacks} (pg_stat_database, the whole database); reservations that found their process's view stale and read the locker again: ${reads.database} of ${reads.memory + reads.database}`,
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
        note: `${sizes.eventBatches} batches, each one agent transaction; the agent's commit, the cloud's apply (inbox, effect, ack position) and the ack`,
      },
    ];
  } finally {
    while (cleanups.length > 0) await cleanups.pop()!();
  }
}

async function run({ quick, log, serverNodeOptions: nodeOptions }: ScenarioOptions): Promise<Figure[]> {
  serverNodeOptions = nodeOptions ?? [];
  const sizes = SIZES[quick ? 'quick' : 'full'];
  const engines = testEngines();
  const figures: Figure[] = [];
  figures.push(...(await sqliteCreates(sizes, log)));
  figures.push(...(await loggingAndTracing(sizes, log)));
  if (engines.includes('postgres')) {
    figures.push(...(await postgresCreates(sizes, log)));
    const [lite, pg] = [figures.find((f) => f.name === HEALTH_RATE('SQLite')), figures.find((f) => f.name === HEALTH_RATE('PostgreSQL'))];
    if (lite && pg) {
      figures.push({
        name: 'GET /health, PostgreSQL against SQLite',
        value: pg.value,
        unit: 'req/s',
        baseline: { name: 'SQLite', value: lite.value, unit: 'req/s' },
        ratio: pg.value / lite.value,
        goal: 'a probe costs about the same on either engine (it queries its own connection)',
        met: pg.value / lite.value >= 0.5,
      });
    }
  }
  else figures.push({ name: 'smartorder/create, PostgreSQL', value: NaN, unit: 'req/s', note: 'skipped: DATABASE_URL is not set' });
  for (const engine of engines) figures.push(...(await lockerEvents(engine, sizes)));
  return figures;
}

export const scenario: Scenario = { title: 'throughput', run };
