/**
 * Noisy neighbours: does one abusive caller with valid credentials take the cloud from the rest?
 * The cloud runs as a process of its own (PostgreSQL in a fresh schema when DATABASE_URL is set,
 * else SQLite; the embedded MQTT broker; bench/noisy-server.ts) and a load process keeps
 * reservations (smartorder/create) in flight for a fixed time, first quiet, then while:
 * - another marketplace floods with reservations, FLOOD_IN_FLIGHT at once (a load process of its
 *   own): with one FIFO pool it held nearly every PostgreSQL connection; and, from this process:
 * - one locker, with its own password, publishes messages just under the packet limit as fast as
 *   the broker acknowledges them, sends one over it now and then (which closes its connection and
 *   backs it off), reconnects as soon as it is let in, and floods SUBSCRIBE with 1,000 filters;
 * - one viewer operator key holds all its /operator/stream slots and keeps asking for more.
 * Each round runs the load quiet, under the locker's and the viewer's noise, then under that noise
 * plus the flood. Figures: the noisy reservation rate and p99 against the quiet ones (goals: at
 * least 0.8 of the rate, p99 at most 2x); under the flood, the load's rate against the flood's
 * (two marketplaces share two cores, so the goal is a fair share: at least 0.8 of the flood's);
 * and whether another locker got an operator's command during the noise.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import mqtt, { type MqttClient } from 'mqtt';
import pg from 'pg';
import { PROTOCOL_VERSION, MAX_MESSAGE_BYTES } from '../shared/src/protocol.js';
import { topics } from '../shared/src/topics.js';
import { benchFleet, lockerPassword, tomorrowInMoscow, writeFleet } from './bench-fleet.js';
import type { LoadResult, LoadSpec } from './load-client.js';
import { testDatabaseUrl } from '../test/helpers/cloud-db.js';
import type { Figure, Scenario, ScenarioOptions } from './scenario.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..');
const IN_FLIGHT = 16;
/** The flooding marketplace's reservations in flight: many times the pool (10 connections). */
const FLOOD_IN_FLIGHT = 128;
const FLOOD_KEY = 'bench-flood-key';
const NOISY_LOCKER = 1;
const OTHER_LOCKER = 2;
const VIEWER_KEY = 'bench-viewer-key';
const OPERATOR_KEY = 'bench-operator-key';
/** Under-the-limit publishes between two over it. */
const UNDER_PER_OVER = 5;

interface Sizes {
  seconds: number;
  rounds: number;
  lockers: number;
}
const SIZES: Record<'quick' | 'full', Sizes> = {
  quick: { seconds: 3, rounds: 1, lockers: 600 },
  full: { seconds: 8, rounds: 2, lockers: 2_000 },
};

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

interface Cloud {
  url: string;
  brokerUrl: string;
  stop(): Promise<void>;
}

function startCloud(fleetFile: string, database: string[], nodeOptions: string[]): Promise<Cloud> {
  const child: ChildProcess = fork(join(here, 'noisy-server.ts'), [fleetFile, ...database], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx', ...nodeOptions],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    child.once('message', (m: { url: string; brokerUrl: string }) => resolve({ ...m, stop }));
    child.once('exit', (code) => reject(new Error(`cloud exited with ${code} before listening`)));
  });
}

function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const child = fork(join(here, 'load-client.ts'), [JSON.stringify(spec)], { cwd: ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`load client exited with ${code}`))));
  });
}

interface NoiseCounts {
  underAcked: number;
  overSent: number;
  connects: number;
  connectRefusals: number;
  subscribeFloods: number;
  filtersRefused: number;
  streamsHeld: number;
  streamRefusals: number;
}

const connectLocker = (url: string, id: number): Promise<MqttClient> =>
  new Promise((resolve, reject) => {
    const client = mqtt.connect(url, { clientId: String(id), username: String(id), password: lockerPassword(id), protocolVersion: 4, clean: true, reconnectPeriod: 0, connectTimeout: 10_000 });
    client.once('connect', () => resolve(client));
    // Errors after CONNACK end in 'close', which the caller waits for.
    client.on('error', () => undefined);
    client.once('error', (err) => {
      client.end(true);
      reject(err);
    });
    client.once('close', () => reject(new Error('closed before CONNACK')));
  });

/** The noisy locker, until stop() is called. */
function noisyLocker(url: string, counts: NoiseCounts): { stop(): Promise<void> } {
  let running = true;
  const under = Buffer.alloc(MAX_MESSAGE_BYTES - 1024, 0x20);
  const over = Buffer.alloc(MAX_MESSAGE_BYTES + 1024, 0x20);
  const filters = Array.from({ length: 1_000 }, (_, i) => `${topics.down(String(NOISY_LOCKER))}${i % 2 ? '' : `/${i}`}`);
  const loop = async (): Promise<void> => {
    while (running) {
      let client: MqttClient;
      try {
        client = await connectLocker(url, NOISY_LOCKER);
        counts.connects++;
      } catch {
        counts.connectRefusals++;
        continue;
      }
      try {
        for (let i = 0; running && i < UNDER_PER_OVER; i++) {
          await client.publishAsync(topics.up(String(NOISY_LOCKER)), under, { qos: 1 });
          counts.underAcked++;
          if (i % 10 === 0) {
            const granted = await client.subscribeAsync(filters, { qos: 1 }).catch((err: { packet?: { granted?: number[] } }) => err.packet?.granted ?? []);
            counts.subscribeFloods++;
            counts.filtersRefused += granted.filter((g) => (typeof g === 'number' ? g : g.qos) === 128).length;
          }
        }
        if (running) {
          client.publish(topics.up(String(NOISY_LOCKER)), over, { qos: 1 });
          counts.overSent++;
          await new Promise<void>((resolve) => (client.connected ? client.once('close', () => resolve()) : resolve()));
        }
      } catch {
        // Closed by the broker: connect again.
      } finally {
        client.end(true);
      }
    }
  };
  const done = loop();
  return {
    async stop() {
      running = false;
      await done;
    },
  };
}

/** The viewer key: every stream slot held, more asked for all the time. */
function greedyViewer(baseUrl: string, counts: NoiseCounts): { stop(): Promise<void> } {
  let running = true;
  const aborts = new AbortController();
  // Held here: a response no longer referenced is collected, and its stream closed with it.
  const held: Response[] = [];
  const open = async (): Promise<number> => {
    const res = await fetch(`${baseUrl}/operator/stream`, { headers: { 'x-operator-api-key': VIEWER_KEY }, signal: aborts.signal });
    if (res.status === 200) held.push(res);
    else await res.body?.cancel();
    return res.status;
  };
  const loop = async (): Promise<void> => {
    while (running) {
      const status = await open().catch(() => 0);
      if (status === 200) counts.streamsHeld++;
      else if (status === 429) counts.streamRefusals++;
    }
  };
  const done = loop();
  return {
    async stop() {
      running = false;
      aborts.abort();
      await done;
    },
  };
}

/** Locker 2 as an agent would be: connected, subscribed, its hello sent; counts its commands. */
async function otherLocker(url: string): Promise<{ commands(): number; end(): Promise<void> }> {
  const client = await connectLocker(url, OTHER_LOCKER);
  let commands = 0;
  client.on('message', (_topic, payload) => {
    const msg = JSON.parse(payload.toString()) as { type: string };
    if (msg.type === 'commands' || msg.type === 'snapshot') commands++;
  });
  await client.subscribeAsync(topics.down(String(OTHER_LOCKER)), { qos: 1 });
  await client.publishAsync(topics.presence(String(OTHER_LOCKER)), JSON.stringify({ v: PROTOCOL_VERSION, online: true, conn: 1, at: Date.now() }), { qos: 1, retain: true });
  await client.publishAsync(topics.up(String(OTHER_LOCKER)), JSON.stringify({ v: PROTOCOL_VERSION, type: 'hello', lockerId: String(OTHER_LOCKER), appliedCseq: 0, ackedDseq: 0, conn: 1 }), { qos: 1 });
  return { commands: () => commands, end: () => client.endAsync(true) };
}

async function until(probe: () => boolean, boundMs: number): Promise<boolean> {
  const end = Date.now() + boundMs;
  while (Date.now() < end) {
    if (probe()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return probe();
}

async function run(opts: ScenarioOptions): Promise<Figure[]> {
  const size = SIZES[opts.quick ? 'quick' : 'full'];
  const ids = Array.from({ length: size.lockers }, (_, i) => i + 1);
  const fleet = benchFleet(ids);
  fleet.operators = [
    { name: 'bench-viewer', role: 'viewer', apiKeySha256: [sha(VIEWER_KEY)] },
    { name: 'bench-operator', role: 'operator', apiKeySha256: [sha(OPERATOR_KEY)] },
  ];
  fleet.marketplaces.push({ id: 'bench-flood', name: 'Bench flood', apiKeySha256: [sha(FLOOD_KEY)], rateLimits: { requests: { max: 1_000_000, windowSeconds: 1 } } });
  const files = writeFleet(fleet);
  const databaseUrl = testDatabaseUrl();
  const engine = databaseUrl ? 'PostgreSQL' : 'SQLite';
  const pgSchema = `bench_noisy_${randomBytes(4).toString('hex')}`;
  const cloud = await startCloud(files.file, databaseUrl ? [databaseUrl, pgSchema] : [join(files.dir, 'cloud.sqlite')], opts.serverNodeOptions ?? []);
  try {
    const date = tomorrowInMoscow();
    // The noisy locker and the other one reserve nothing: the load goes to the rest, the flood to lockers of its own.
    const loadLockers = ids.filter((id) => id > OTHER_LOCKER && id % 4 !== 0);
    const floodLockers = ids.filter((id) => id > OTHER_LOCKER && id % 4 === 0);
    const spec = (prefix: string): LoadSpec => ({ urls: [cloud.url], inFlight: IN_FLIGHT, durationMs: size.seconds * 1000, request: { kind: 'smartorder/create', lockers: loadLockers, date, prefix } });
    const floodSpec = (prefix: string): LoadSpec => ({ ...spec(prefix), inFlight: FLOOD_IN_FLIGHT, key: FLOOD_KEY, request: { kind: 'smartorder/create', lockers: floodLockers, date, prefix } });
    const flooded: LoadResult[] = [];
    // As long as a phase: a shorter warm-up left the first quiet phase slower than the later ones.
    await runLoad({ ...spec('warm'), durationMs: size.seconds * 1000 });
    opts.log('cloud started and warmed up');
    const other = await otherLocker(cloud.brokerUrl);
    const quiet: LoadResult[] = [];
    const noisy: LoadResult[] = [];
    const floodedLoad: LoadResult[] = [];
    const counts: NoiseCounts = { underAcked: 0, overSent: 0, connects: 0, connectRefusals: 0, subscribeFloods: 0, filtersRefused: 0, streamsHeld: 0, streamRefusals: 0 };
    let commandDone = true;
    /** The load under the locker's and the viewer's noise, and with `flood` another marketplace's flood too. */
    const underNoise = async (round: number, flood: boolean): Promise<LoadResult> => {
      const locker = noisyLocker(cloud.brokerUrl, counts);
      const viewer = greedyViewer(cloud.url, counts);
      const flooding = flood ? runLoad(floodSpec(`flood${round}`)) : undefined;
      const load = runLoad(spec(`${flood ? 'flooded' : 'noisy'}${round}`));
      // An operator's command to the other locker, in the middle of the noise.
      await new Promise((r) => setTimeout(r, (size.seconds * 1000) / 2));
      const before = other.commands();
      const flagged = await fetch(`${cloud.url}/operator/postamats/${OTHER_LOCKER}/cells/1/flags`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-operator-api-key': OPERATOR_KEY },
        body: JSON.stringify({ blocked: (round * 2 + (flood ? 1 : 0)) % 2 === 0 }),
      });
      const arrived = flagged.status === 200 && (await until(() => other.commands() > before, 10_000));
      commandDone &&= arrived;
      const n = await load;
      if (flooding) {
        const f = await flooding;
        flooded.push(f);
        opts.log(`flood: ${Math.round(f.perSecond)} req/s, p99 ${f.p99Ms.toFixed(1)} ms ${JSON.stringify(f.statuses)}`);
      }
      await locker.stop();
      await viewer.stop();
      opts.log(`${flood ? 'flooded' : 'noisy'}: ${Math.round(n.perSecond)} req/s, p99 ${n.p99Ms.toFixed(1)} ms ${JSON.stringify(n.statuses)}; command ${arrived ? 'arrived' : 'DID NOT ARRIVE'}; ${JSON.stringify(counts)}`);
      return n;
    };
    for (let round = 0; round < size.rounds; round++) {
      const q = await runLoad(spec(`quiet${round}`));
      quiet.push(q);
      opts.log(`quiet: ${Math.round(q.perSecond)} req/s, p99 ${q.p99Ms.toFixed(1)} ms ${JSON.stringify(q.statuses)}`);
      noisy.push(await underNoise(round, false));
      floodedLoad.push(await underNoise(round, true));
    }
    await other.end();
    const rate = (list: LoadResult[]) => list.reduce((a, r) => a + r.requests, 0) / list.reduce((a, r) => a + r.seconds, 0);
    const p99 = (list: LoadResult[]) => Math.max(...list.map((r) => r.p99Ms));
    const statuses = (list: LoadResult[]) => {
      const all: Record<string, number> = {};
      for (const r of list) for (const [k, v] of Object.entries(r.statuses)) all[k] = (all[k] ?? 0) + v;
      return Object.entries(all).map(([k, v]) => `${v} ${k}`).join(', ');
    };
    const quietRate = rate(quiet);
    const noisyRate = rate(noisy);
    const floodedRate = rate(floodedLoad);
    const floodRate = rate(flooded);
    const name = `smartorder/create, ${engine}, ${IN_FLIGHT} in flight`;
    const noise =
      `noise: ${counts.underAcked} messages of ${MAX_MESSAGE_BYTES - 1024} bytes acknowledged, ${counts.overSent} over the limit, ` +
      `${counts.connects} connections let in and ${counts.connectRefusals} refused, ${counts.subscribeFloods} SUBSCRIBE of 1,000 filters (${counts.filtersRefused} filters refused); ` +
      `viewer held ${counts.streamsHeld} streams, ${counts.streamRefusals} more refused (429)`;
    return [
      {
        name: `${name}, one noisy locker and one greedy viewer key: rate`,
        value: noisyRate,
        unit: 'req/s',
        baseline: { name: `${name}, quiet`, value: quietRate, unit: 'req/s' },
        ratio: noisyRate / quietRate,
        goal: '≥ 0.8 of the quiet rate',
        met: noisyRate / quietRate >= 0.8,
        note: `${statuses(noisy)} (quiet: ${statuses(quiet)}); ${noise}`,
      },
      {
        name: `${name}, one noisy locker and one greedy viewer key: p99`,
        value: p99(noisy),
        unit: 'ms',
        baseline: { name: `${name}, quiet: p99`, value: p99(quiet), unit: 'ms' },
        ratio: p99(noisy) / p99(quiet),
        goal: '≤ 2x the quiet p99',
        met: p99(noisy) / p99(quiet) <= 2,
      },
      {
        // Two marketplaces on two cores: what is measured is the share, not the quiet rate.
        name: `${name}, the same noise plus another marketplace with ${FLOOD_IN_FLIGHT} reservations in flight: rate against the flood's`,
        value: floodedRate,
        unit: 'req/s',
        baseline: { name: "the flooding marketplace's rate", value: floodRate, unit: 'req/s' },
        ratio: floodedRate / floodRate,
        goal: "≥ 0.8 of the flood's rate (served in turn, not behind it)",
        met: floodedRate / floodRate >= 0.8,
        note: `${(floodedRate / quietRate).toFixed(2)} of the quiet rate, p99 ${p99(floodedLoad).toFixed(0)} ms (${(p99(floodedLoad) / p99(quiet)).toFixed(1)}x); ${statuses(floodedLoad)}; flood: ${statuses(flooded)}`,
      },
      {
        name: "another locker's command (cell flags) during the noise",
        value: commandDone ? 1 : 0,
        unit: 'arrived',
        goal: 'arrives in every noisy round',
        met: commandDone,
      },
    ];
  } finally {
    await cloud.stop();
    files.remove();
    if (databaseUrl) await dropSchema(databaseUrl, pgSchema);
  }
}

async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

export const scenario: Scenario = { title: 'Noisy neighbours: a flooding marketplace, one abusive locker and one greedy viewer key against reservations', run };
