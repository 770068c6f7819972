/**
 * A rollout to thousands of lockers on one cloud process: light lockers (bench/fleet-load/) that
 * say in their hello that they install releases and answer an update offer with the reports the
 * agent sends at each step (without downloading the artifact), against `npm run cloud` in a
 * process of its own (SQLite, embedded broker). A release signed with a key made for the run is
 * uploaded, then rolled out to every locker in the default waves (1, 10, 50, 100 %) with no soak
 * time; measured: the time from the rollout's creation until it completes, each wave's size, and
 * the cloud's peak CPU and resident memory meanwhile.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { hashMqttPassword } from '../cloud/src/broker/mqtt-password.js';
import { buildRelease, publicKeyOf } from '../shared/src/release.js';
import { freePort } from '../test/helpers/free-port.js';
import { benchFleet, lockerPassword, writeFleet } from './bench-fleet.js';
import { agentLinkTiming } from './fleet-load/agent-timing.js';
import { CloudProcess } from './fleet-load/cloud-process.js';
import { GeneratorPool } from './fleet-load/generator-pool.js';
import type { Figure, Scenario, ScenarioOptions } from './scenario.js';

const FULL = 5_000;
const QUICK = 300;
const WAVES = [1, 10, 50, 100];
const CLOUD_USER = { username: 'cloud-1', password: 'rollout-bench-secret' };
const OPERATOR_KEY = 'rollout-bench-operator-key';
/** Bound of every wait: far above what a run takes, only so that a stuck run ends with a note. */
const WAIT_MS = 600_000;
const MiB = 1024 * 1024;

async function until<T>(what: string, probe: () => Promise<T | null> | T | null, stepMs = 100): Promise<T> {
  const end = Date.now() + WAIT_MS;
  for (;;) {
    const v = await probe();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`no ${what} within ${WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the operator API's JSON, read field by field
type Json = any;

async function operator(cloud: CloudProcess, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${cloud.url}/operator${path}`, {
    method,
    headers: { 'x-operator-api-key': OPERATOR_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A signed release of a few small files: what the lockers are offered (they never fetch it). */
function signedRelease(privateKey: ReturnType<typeof generateKeyPairSync>['privateKey']): Buffer {
  return buildRelease(
    { version: '2.0.0', minProtocol: 1, createdAt: Date.now(), files: [{ path: 'main.js', bytes: Buffer.from('console.log("agent")\n'.repeat(1_000)) }], compress: (d) => gzipSync(d) },
    privateKey,
  );
}

export interface RolloutRun {
  lockers: number;
  waveSizes: number[];
  /** Seconds from the rollout's creation until each wave had every locker confirmed, and until it completed. */
  waveSeconds: number[];
  seconds: number;
  peakCpu: number;
  cpuSeconds: number;
  idleRssMiB: number;
  /** With every locker online, before the rollout. */
  onlineRssMiB: number;
  onlineSeconds: number;
  peakRssMiB: number;
  confirmed: number;
}

export async function runRollout(n: number, log: (line: string) => void, nodeOptions?: string[]): Promise<RolloutRun> {
  const dir = mkdtempSync(join(tmpdir(), 'rollout-scenario-'));
  const ids = Array.from({ length: n }, (_, i) => i + 1);
  const fleet = benchFleet(ids, 12);
  fleet.operators = [{ name: 'bench-ops', apiKeySha256: [hashMqttPassword(OPERATOR_KEY)] }];
  const fleetFile = writeFleet(fleet);
  const { privateKey } = generateKeyPairSync('ed25519');
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(dir, { recursive: true, force: true }), () => fleetFile.remove()];
  try {
    const brokerPort = await freePort();
    const cloud = new CloudProcess({
      fleetFile: fleetFile.file,
      sqlitePath: join(dir, 'cloud.sqlite'),
      port: await freePort(),
      brokerPort,
      mqttUser: CLOUD_USER,
      nodeOptions,
      env: { RELEASE_PUBLIC_KEYS: publicKeyOf(privateKey), ROLLOUT_TICK_SECONDS: '1' },
    });
    cleanups.unshift(
      () => cloud.stop(),
      () => cloud.close(),
    );
    await cloud.start();
    const idleRss = cloud.rssBytes();
    const pool = new GeneratorPool(Math.max(1, Math.ceil(n / 1_500)));
    cleanups.unshift(() => pool.stop());
    await pool.ready();
    await pool.start(
      ids.map((id) => ({ id, password: lockerPassword(id) })),
      { url: `mqtt://127.0.0.1:${brokerPort}`, rampMs: 0, ...agentLinkTiming(), agentVersion: '1.0.0' },
    );
    const tOnline = Date.now();
    await until('lockers online', () => (cloud.view().online === n ? true : null));
    const onlineSeconds = (Date.now() - tOnline) / 1000;
    const onlineRss = cloud.rssBytes();
    log(`  ${n}: every locker online in ${onlineSeconds.toFixed(1)} s, cloud RSS ${(onlineRss / MiB).toFixed(0)} MiB`);

    const upload = await operator(cloud, 'POST', '/releases', { artifact: signedRelease(privateKey).toString('base64') });
    if (upload.status !== 201) throw new Error(`upload refused: ${upload.status} ${JSON.stringify(upload.body)}`);
    const cpu0 = cloud.cpuSeconds();
    let peakCpu = 0;
    let peakRss = onlineRss;
    let last = { at: Date.now(), cpu: cpu0 };
    const sampler = setInterval(() => {
      const now = { at: Date.now(), cpu: cloud.cpuSeconds() };
      peakCpu = Math.max(peakCpu, (now.cpu - last.cpu) / ((now.at - last.at) / 1000));
      peakRss = Math.max(peakRss, cloud.rssBytes());
      last = now;
    }, 250);
    cleanups.unshift(() => clearInterval(sampler));
    const t0 = Date.now();
    const created = await operator(cloud, 'POST', '/rollouts', { releaseId: upload.body.id, target: { kind: 'all' }, waves: WAVES, soakSeconds: 0, reason: 'bench' });
    if (created.status !== 201) throw new Error(`rollout refused: ${created.status} ${JSON.stringify(created.body)}`);
    const waveSeconds: number[] = [];
    const done = await until(
      'the rollout to complete',
      async () => {
        const r = (await operator(cloud, 'GET', `/rollouts/${created.body.id}`)).body;
        for (const w of r.lockers.waves as { wave: number; total: number; byState: Record<string, number> }[]) {
          if (waveSeconds[w.wave - 1] === undefined && (w.byState.confirmed ?? 0) === w.total) {
            waveSeconds[w.wave - 1] = (Date.now() - t0) / 1000;
            log(`  ${n}: wave ${w.wave} (${w.total} lockers) confirmed at ${waveSeconds[w.wave - 1]!.toFixed(1)} s`);
          }
        }
        return r.state === 'completed' ? r : null;
      },
      250,
    );
    const seconds = (Date.now() - t0) / 1000;
    clearInterval(sampler);
    return {
      lockers: n,
      waveSizes: (done.lockers.waves as { total: number }[]).map((w) => w.total),
      waveSeconds,
      seconds,
      peakCpu,
      cpuSeconds: cloud.cpuSeconds() - cpu0,
      idleRssMiB: idleRss / MiB,
      onlineRssMiB: onlineRss / MiB,
      onlineSeconds,
      peakRssMiB: peakRss / MiB,
      confirmed: done.lockers.byState.confirmed ?? 0,
    };
  } finally {
    for (const c of cleanups) await c();
  }
}

const round = (x: number): number => Math.round(x * 100) / 100;

export function figures(r: RolloutRun): Figure[] {
  const label = `${r.lockers} lockers, waves ${WAVES.join('/')} %, no soak`;
  return [
    {
      name: `rollout: created to completed, ${label}`,
      value: round(r.seconds),
      unit: 's',
      goal: 'every locker confirmed, under 180 s',
      met: r.confirmed === r.lockers && r.seconds < 180,
      note: `wave sizes ${r.waveSizes.join(', ')}; each wave confirmed at ${r.waveSeconds.map((s) => `${s.toFixed(1)} s`).join(', ')}`,
    },
    { name: `rollout: cloud peak CPU, ${label}`, value: Math.round(r.peakCpu * 100), unit: '% of a core', note: `${round(r.cpuSeconds)} CPU s in all` },
    { name: `rollout: cloud peak RSS, ${label}`, value: round(r.peakRssMiB), unit: 'MiB', note: `${round(r.idleRssMiB)} MiB before the lockers, ${round(r.onlineRssMiB)} MiB with all online before the rollout (online in ${round(r.onlineSeconds)} s)` },
  ];
}

export async function runRolloutScenario(opts: ScenarioOptions): Promise<Figure[]> {
  const n = opts.quick ? QUICK : FULL;
  opts.log(`rollout: ${n} lockers`);
  const run = await runRollout(n, opts.log, opts.serverNodeOptions);
  opts.log(`rollout: ${n} lockers completed in ${run.seconds.toFixed(1)} s, peak CPU ${Math.round(run.peakCpu * 100)} %, peak RSS ${run.peakRssMiB.toFixed(0)} MiB`);
  return figures(run);
}

export const scenario: Scenario = {
  title: 'Rollout: a release to every locker of a fleet in waves',
  run: runRolloutScenario,
};
