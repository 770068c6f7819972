/**
 * Thousands of lockers on one cloud process: light lockers (bench/fleet-load/) in generator
 * processes, one MQTT connection each, against `npm run cloud` in a process of its own (SQLite),
 * through its embedded broker and through a private Mosquitto. For each fleet size:
 * - online: from the generators' start until the cloud's lockers table shows every locker online
 *   with its hello answered; the cloud's RSS and CPU seconds beside the same process idle before;
 * - burst: one order per locker through the HTTP API (16 in flight) until every locker applied
 *   its order.upsert and the cloud has every ack;
 * - storm: the lockers' next orders lost on the way, then the broker restarted (Mosquitto: the
 *   broker process; embedded: the cloud process that holds it), until every locker is back with
 *   its pending order applied, counted at the lockers (each once), with the cloud's peak CPU.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/helpers/free-port.js';
import { startPrivateMosquitto, type PrivateMosquitto } from '../test/helpers/private-mosquitto.js';
import { benchFleet, createOrderPerLocker, lockerPassword, writeFleet } from './bench-fleet.js';
import { agentLinkTiming } from './fleet-load/agent-timing.js';
import { CloudProcess } from './fleet-load/cloud-process.js';
import { GeneratorPool } from './fleet-load/generator-pool.js';
import type { FleetStats } from './fleet-load/light-fleet.js';
import type { Figure, Scenario, ScenarioOptions } from './scenario.js';

const SIZES = [100, 500, 1_000, 2_000, 5_000];
/** Quick: two small fleets per broker, about 90 s in all (each storm waits out the hello resend or the back-off). */
const QUICK_SIZES = [50, 200];
const CELLS = 12;
const IN_FLIGHT = 16;
const CLOUD_USER = { username: 'cloud-1', password: 'fleet-bench-secret' };
/** Bound of every wait: far above what a run takes, only so that a stuck run ends with a note. */
const WAIT_MS = 600_000;
/** The agent's own timing, so that the connect and the storm are the fleet's real ones. */
const LOCKER_TIMING = agentLinkTiming();

type BrokerKind = 'embedded' | 'mosquitto';

export interface FleetRun {
  broker: BrokerKind;
  lockers: number;
  onlineSeconds: number;
  /** Connection attempts until all were online, and how many of them timed out without a CONNACK. */
  onlineAttempts: number;
  onlineTimeouts: number;
  idleRssMiB: number;
  rssDeltaMiB: number;
  kibPerLocker: number;
  cpuMsPerLocker: number;
  burstSeconds: number;
  burstHttpSeconds: number;
  burstOnce: boolean;
  stormSeconds: number;
  stormPeakCpu: number;
  stormOnce: boolean;
  stormDuplicates: number;
  stormAttempts: number;
  generatorCpuSeconds: number;
}

async function until<T>(what: string, probe: () => Promise<T | null> | T | null, stepMs = 100): Promise<T> {
  const end = Date.now() + WAIT_MS;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`no ${what} within ${WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** The cloud's CPU use, sampled every 250 ms; the highest share of one core seen. */
function cpuSampler(cloud: CloudProcess): { stop(): number } {
  let last: { at: number; cpu: number } | undefined;
  let peak = 0;
  const timer = setInterval(() => {
    try {
      const now = { at: Date.now(), cpu: cloud.cpuSeconds() };
      if (last && now.cpu >= last.cpu) peak = Math.max(peak, (now.cpu - last.cpu) / ((now.at - last.at) / 1000));
      last = now;
    } catch {
      last = undefined; // the process is between lives
    }
  }, 250);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

const createOrders = (cloud: CloudProcess, ids: readonly number[], prefix: string): Promise<void> => createOrderPerLocker(cloud.url, ids, prefix, IN_FLIGHT);

const seconds = (since: number): number => (Date.now() - since) / 1000;
const MiB = 1024 * 1024;

/** Sockets besides the lockers' that a process of the run holds (files, the cloud's own link, HTTP). */
const FD_MARGIN = 512;

/**
 * The soft limit on open files of this process, which the cloud, Mosquitto and the generators
 * inherit: each of them holds up to one socket per locker. Node cannot raise it; `ulimit -n` can.
 */
function openFilesLimit(): number {
  const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
  return line === undefined || line === 'unlimited' ? Infinity : Number(line);
}

export async function runFleet(broker: BrokerKind, n: number, log: (line: string) => void): Promise<FleetRun> {
  const limit = openFilesLimit();
  if (limit < n + FD_MARGIN) throw new Error(`open files limited to ${limit}, below ${n + FD_MARGIN} for ${n} sockets: raise it with ulimit -n`);
  const dir = mkdtempSync(join(tmpdir(), 'fleet-scenario-'));
  const ids = Array.from({ length: n }, (_, i) => i + 1);
  const fleetFile = writeFleet(benchFleet(ids, CELLS));
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(dir, { recursive: true, force: true }), () => fleetFile.remove()];
  try {
    let mosquitto: PrivateMosquitto | undefined;
    if (broker === 'mosquitto') {
      mosquitto = await startPrivateMosquitto(Object.fromEntries([[CLOUD_USER.username, CLOUD_USER.password], ...ids.map((id) => [String(id), lockerPassword(id)])]));
      cleanups.unshift(() => mosquitto!.stop());
    }
    const brokerPort = await freePort();
    const cloud = new CloudProcess({ fleetFile: fleetFile.file, sqlitePath: join(dir, 'cloud.sqlite'), port: await freePort(), brokerPort, mqttUrl: mosquitto?.url, mqttUser: CLOUD_USER });
    cleanups.unshift(
      () => cloud.stop(),
      () => cloud.close(),
    );
    const started = Date.now();
    await cloud.start();
    log(`  ${broker} ${n}: cloud started in ${seconds(started).toFixed(1)} s`);
    await new Promise((r) => setTimeout(r, 1_000));
    const idleRss = cloud.rssBytes();
    const idleCpu = cloud.cpuSeconds();

    const pool = new GeneratorPool(Math.max(1, Math.ceil(n / 1_500)));
    cleanups.unshift(() => pool.stop());
    await pool.ready();
    const url = mosquitto?.url ?? `mqtt://127.0.0.1:${brokerPort}`;
    const t0 = Date.now();
    await pool.start(
      ids.map((id) => ({ id, password: lockerPassword(id) })),
      { url, rampMs: 0, ...LOCKER_TIMING },
    );
    await until('lockers online', () => (cloud.view().online === n ? true : null));
    const onlineSeconds = seconds(t0);
    const connected = await pool.stats();
    // Each locker first applies its layout (locker.config) from the hello's replay.
    await until('layouts applied', () => (cloud.view().caughtUp === n ? true : null));
    const rss = cloud.rssBytes();
    const cpu = cloud.cpuSeconds();
    log(`  ${broker} ${n}: online in ${onlineSeconds.toFixed(1)} s, RSS ${(idleRss / MiB).toFixed(0)} -> ${(rss / MiB).toFixed(0)} MiB`);

    // The burst.
    await pool.all({ op: 'watch', prefix: 'B-' });
    await pool.all({ op: 'expect', more: 1 });
    const tb = Date.now();
    await createOrders(cloud, ids, 'B-');
    const burstHttpSeconds = seconds(tb);
    const burst = await until('the burst applied', async () => {
      const s = await pool.stats();
      return s.appliedAtLeast === n && cloud.view().caughtUp === n ? s : null;
    });
    const burstSeconds = seconds(tb);
    log(`  ${broker} ${n}: burst HTTP ${burstHttpSeconds.toFixed(1)} s, all acked ${burstSeconds.toFixed(1)} s`);

    // The storm: every locker's next order lost on the way, then the broker restarts.
    await pool.all({ op: 'deaf', on: true });
    await pool.all({ op: 'watch', prefix: 'S-' });
    await pool.all({ op: 'expect', more: 1 });
    const before: FleetStats = await pool.stats();
    await createOrders(cloud, ids, 'S-');
    await until('the lost commands', async () => ((await pool.stats()).dropped >= before.dropped + n ? true : null));
    await pool.all({ op: 'deaf', on: false });
    const sampler = cpuSampler(cloud);
    if (mosquitto) {
      await mosquitto.restart();
    } else {
      await cloud.stop();
      await cloud.start();
    }
    const ts = Date.now();
    log(`  ${broker} ${n}: broker back; waiting for the fleet`);
    const storm = await until('the storm to settle', async () => {
      const s = await pool.stats();
      const v = cloud.view();
      return s.online === n && s.appliedAtLeast === n && v.online === n && v.caughtUp === n ? s : null;
    });
    const stormSeconds = seconds(ts);
    const stormPeakCpu = sampler.stop();
    const usage = await pool.usage();
    log(`  ${broker} ${n}: storm settled in ${stormSeconds.toFixed(1)} s, peak CPU ${(stormPeakCpu * 100).toFixed(0)} %`);
    return {
      broker,
      lockers: n,
      onlineSeconds,
      onlineAttempts: connected.attempts,
      onlineTimeouts: connected.timeouts,
      idleRssMiB: idleRss / MiB,
      rssDeltaMiB: (rss - idleRss) / MiB,
      kibPerLocker: (rss - idleRss) / 1024 / n,
      cpuMsPerLocker: ((cpu - idleCpu) * 1000) / n,
      burstSeconds,
      burstHttpSeconds,
      burstOnce: burst.upsertedOnce === n && burst.upsertedTwice === 0,
      stormSeconds,
      stormPeakCpu,
      stormOnce: storm.upsertedOnce === n && storm.upsertedTwice === 0 && storm.gaps === before.gaps,
      stormDuplicates: storm.duplicates - before.duplicates,
      stormAttempts: storm.attempts - before.attempts,
      generatorCpuSeconds: usage.cpuSeconds,
    };
  } finally {
    for (const c of cleanups) await c();
  }
}

function figures(runs: readonly FleetRun[]): Figure[] {
  const out: Figure[] = [];
  for (const broker of ['embedded', 'mosquitto'] as const) {
    const of = runs.filter((r) => r.broker === broker);
    const base = of[0];
    if (!base) continue;
    for (const r of of) {
      const label = `${r.lockers} lockers, ${broker} broker`;
      const vs = (name: string, value: number, unit: string) =>
        r === base ? {} : { baseline: { name: `${base.lockers} lockers`, value, unit }, ratio: undefined as number | undefined };
      const per = (name: string, value: number, baseValue: number, unit: string, extra: Partial<Figure> = {}): Figure => {
        const b = vs(name, baseValue, unit);
        return { name: `${name}, ${label}`, value: round(value), unit, ...b, ...(b.baseline ? { ratio: round(value / baseValue) } : {}), ...extra };
      };
      out.push(
        per('time to all online', r.onlineSeconds, base.onlineSeconds, 's', {
          note: `${r.onlineAttempts} connection attempts, ${r.onlineTimeouts} without a CONNACK within the agent's connect timeout`,
        }),
        per('cloud RSS per locker', r.kibPerLocker, base.kibPerLocker, 'KiB', { note: `RSS ${round(r.idleRssMiB)} MiB idle, +${round(r.rssDeltaMiB)} MiB online` }),
        per('cloud CPU per locker coming online', r.cpuMsPerLocker, base.cpuMsPerLocker, 'ms'),
        per('burst: one order per locker, all acked', r.burstSeconds, base.burstSeconds, 's', {
          goal: 'each order.upsert applied once at its locker',
          met: r.burstOnce,
          note: `HTTP part ${round(r.burstHttpSeconds)} s at ${IN_FLIGHT} in flight`,
        }),
        per('storm: broker restart to all back, pending commands applied', r.stormSeconds, base.stormSeconds, 's', {
          goal: 'every pending command applied once at its locker',
          met: r.stormOnce,
          note: `cloud peak CPU ${Math.round(r.stormPeakCpu * 100)} % of a core; ${r.stormAttempts} connection attempts; ${r.stormDuplicates} commands received twice (skipped)`,
        }),
      );
    }
  }
  return out;
}

const round = (x: number): number => Math.round(x * 100) / 100;

/** The table of how cost grows with the fleet. */
export function formatRuns(runs: readonly FleetRun[]): string {
  const head = '| broker | N | online s (attempts, timeouts) | RSS idle MiB | RSS delta MiB | KiB/locker | CPU ms/locker | burst s (HTTP s) | storm s | storm peak CPU | once | generator CPU s |';
  const rule = '|---|---|---|---|---|---|---|---|---|---|---|---|';
  const rows = runs.map(
    (r) =>
      `| ${r.broker} | ${r.lockers} | ${r.onlineSeconds.toFixed(1)} (${r.onlineAttempts}, ${r.onlineTimeouts}) | ${r.idleRssMiB.toFixed(0)} | ${r.rssDeltaMiB.toFixed(1)} | ${r.kibPerLocker.toFixed(1)} | ${r.cpuMsPerLocker.toFixed(2)} | ${r.burstSeconds.toFixed(1)} (${r.burstHttpSeconds.toFixed(1)}) | ${r.stormSeconds.toFixed(1)} | ${Math.round(r.stormPeakCpu * 100)} % | ${r.burstOnce && r.stormOnce ? 'yes' : 'NO'} | ${r.generatorCpuSeconds.toFixed(1)} |`,
  );
  return [head, rule, ...rows].join('\n');
}

export async function runFleetScenario(opts: ScenarioOptions, sizes = opts.quick ? QUICK_SIZES : SIZES): Promise<{ runs: FleetRun[]; figures: Figure[] }> {
  const runs: FleetRun[] = [];
  const failures: Figure[] = [];
  const brokers: BrokerKind[] = ['embedded', 'mosquitto'];
  for (const broker of brokers) {
    for (const n of sizes) {
      opts.log(`fleet: ${n} lockers through the ${broker} broker`);
      try {
        runs.push(await runFleet(broker, n, opts.log));
      } catch (err) {
        opts.log(`fleet: ${n} lockers, ${broker}: ${(err as Error).message}`);
        failures.push({ name: `${n} lockers, ${broker} broker`, value: NaN, unit: 's', goal: 'the run completes', met: false, note: (err as Error).message });
        break; // a larger fleet would fail the same way
      }
    }
  }
  opts.log(formatRuns(runs));
  return { runs, figures: [...figures(runs), ...failures] };
}

export const scenario: Scenario = {
  title: 'Fleet: lockers on one cloud process (online, order burst, broker restart storm)',
  async run(opts) {
    return (await runFleetScenario(opts)).figures;
  },
};
