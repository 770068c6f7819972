/**
 * The agent's footprint on a locker controller: from spawn to ready (the agent prints its screen
 * URL once its store, buses, scanner and screen are up) and its resident memory idle, at its peak
 * under a burst of barcode scans from the simulator's scanner and a second after, run as shipped
 * for controllers (the command of deploy/systemd/locker-agent.service: the bundle of
 * `npm run build:agent` with the unit's V8 flags), the same bundle with Node's default heap sizes
 * (what the flags save), and through tsx (`npm run agent`), beside a bare Node process that
 * prints a line and idles, all in the same run, the variants taking turns round by round.
 * Goal: ready within 1 s and at most 60 MB idle.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shippedAgentCommand } from '../scripts/shipped-agent-command.js';
import { startSimulator, type SimulatorHandle } from '../sim/src/index.js';
import type { Figure, Scenario, ScenarioOptions } from './scenario.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUNDLE = join(ROOT, 'dist', 'agent', 'main.js');
const MiB = 1024 * 1024;
const GOAL_READY_MS = 1_000;
const GOAL_RSS_MB = 60;

interface Sample {
  readyMs: number;
  /** CPU time (user + system) the process spent until ready: what a loaded machine moves far less than the wall time. */
  readyCpuMs: number;
  idleRss: number;
  burstPeakRss: number;
  afterBurstRss: number;
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
}

/** User plus system CPU time of a process, from /proc (clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Spawns and resolves with the ms (wall and CPU) until stdout shows `marker`. */
async function spawnUntil(args: string[], marker: string): Promise<{ child: ChildProcess; readyMs: number; readyCpuMs: number }> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const readyMs = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`not ready within 60 s: ${stderr}`)), 60_000);
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes(marker)) {
        clearTimeout(timer);
        resolve(Number(process.hrtime.bigint() - started) / 1e6);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${stderr}`));
    });
  });
  child.stdout?.resume();
  return { child, readyMs, readyCpuMs: cpuMsOf(child.pid!) };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** One agent life: ready, idle, a burst of scans (each answered by the screen flow), idle again. */
async function measureAgent(args: string[], sim: SimulatorHandle, scans: number): Promise<Sample> {
  const { child, readyMs, readyCpuMs } = await spawnUntil(args, 'screen: ');
  try {
    await sleep(2_000);
    const idleRss = rssOf(child.pid!);
    let burstPeakRss = idleRss;
    const sampler = setInterval(() => (burstPeakRss = Math.max(burstPeakRss, rssOf(child.pid!))), 25);
    for (let i = 0; i < scans; i++) await sim.scan(`FOOT-${i}-${Date.now()}`);
    await sleep(500);
    clearInterval(sampler);
    burstPeakRss = Math.max(burstPeakRss, rssOf(child.pid!));
    await sleep(1_000);
    return { readyMs, readyCpuMs, idleRss, burstPeakRss, afterBurstRss: rssOf(child.pid!) };
  } finally {
    await stop(child);
  }
}

async function measureBare(): Promise<Sample> {
  const { child, readyMs, readyCpuMs } = await spawnUntil(['-e', "console.log('ready'); setInterval(() => {}, 1000)"], 'ready');
  try {
    await sleep(2_000);
    const rss = rssOf(child.pid!);
    return { readyMs, readyCpuMs, idleRss: rss, burstPeakRss: rss, afterBurstRss: rss };
  } finally {
    await stop(child);
  }
}

/** A config with a store of its own, so that every run starts from the same empty store. */
function agentConfig(dir: string, sim: SimulatorHandle, run: string): string {
  const path = join(dir, `agent-${run}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      lockerId: '1',
      buses: [sim.busConfig('main', 'tcp')],
      scanner: sim.scannerConfig('tcp'),
      dbPath: join(dir, `agent-${run}.sqlite`),
      screen: { host: '127.0.0.1', port: 0, defaultLanguage: 'en' },
    }),
  );
  return path;
}

/** The layout a cloud would send: 24 cells on one CU48 board. */
function snapshotFile(dir: string): string {
  const path = join(dir, 'snapshot.json');
  const cells = Array.from({ length: 24 }, (_, i) => ({ id: i + 1, width: 400, height: [100, 200, 400][i % 3]!, bus: 'main', board: 0, lock: i + 1, flags: [] }));
  writeFileSync(path, JSON.stringify({ cseq: 1, config: { lockerId: '1', timezone: 'Europe/Moscow', depth: 600, cells }, orders: [], grants: [] }));
  return path;
}

type Variant = 'bare' | 'shipped' | 'bundle' | 'tsx';

export async function runFootprint(opts: ScenarioOptions): Promise<Record<Variant, Sample | null> & { shippedArgs: string[] }> {
  const rounds = opts.quick ? 1 : 3;
  const scans = opts.quick ? 100 : 300;
  // Built afresh, so that the bundle measured is the one of the sources beside it.
  opts.log('agent footprint: building the agent bundle (npm run build:agent)');
  const built = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/build-agent.ts')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0) opts.log('agent footprint: the build failed; measuring tsx only');
  const haveBundle = built.status === 0 && existsSync(BUNDLE);
  const sim = await startSimulator({ buses: [{ name: 'main', family: 'kerong-cu48', boards: 1 }], scanner: { suffix: 'crlf' } });
  const dir = mkdtempSync(join(tmpdir(), 'agent-footprint-'));
  try {
    const snapshot = snapshotFile(dir);
    // The unit's flags with the bundle as built (a controller starts it through releases/current).
    const shippedArgs = shippedAgentCommand(ROOT, 'dist/agent/main.js');
    const commands: Array<[Exclude<Variant, 'bare'>, string[]]> = [['tsx', ['--import', 'tsx', join(ROOT, 'agent/src/main.ts')]]];
    if (haveBundle) commands.unshift(['shipped', shippedArgs], ['bundle', [BUNDLE]]);
    const variants: Record<Variant, Sample[]> = { bare: [], shipped: [], bundle: [], tsx: [] };
    for (let r = 0; r < rounds; r++) {
      variants.bare.push(await measureBare());
      // The agents take turns in a rotated order, so that none always runs first after the bare one.
      for (let i = 0; i < commands.length; i++) {
        const [variant, command] = commands[(i + r) % commands.length]!;
        const config = agentConfig(dir, sim, `${variant}-${r}`);
        variants[variant].push(await measureAgent([...command, '--config', config, '--snapshot', snapshot], sim, scans));
      }
      opts.log(`agent footprint: round ${r + 1} of ${rounds}`);
    }
    const pick = (xs: Sample[]): Sample | null =>
      xs.length === 0
        ? null
        : {
            readyMs: median(xs.map((x) => x.readyMs)),
            readyCpuMs: median(xs.map((x) => x.readyCpuMs)),
            idleRss: median(xs.map((x) => x.idleRss)),
            burstPeakRss: median(xs.map((x) => x.burstPeakRss)),
            afterBurstRss: median(xs.map((x) => x.afterBurstRss)),
          };
    return { bare: pick(variants.bare), shipped: pick(variants.shipped), bundle: pick(variants.bundle), tsx: pick(variants.tsx), shippedArgs };
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

export const scenario: Scenario = {
  title: 'Agent footprint: spawn to ready, RSS idle and under scans (shipped, bundle with default heap, tsx, bare Node)',
  async run(opts) {
    const { bare, shipped, bundle, tsx, shippedArgs } = await runFootprint(opts);
    const figures: Figure[] = [];
    const bareReady = { name: 'bare Node process, spawn to first line', value: round1(bare!.readyMs), unit: 'ms' };
    const bareCpu = { name: 'bare Node process, CPU time to first line', value: round1(bare!.readyCpuMs), unit: 'ms' };
    const bareRss = { name: 'bare Node process idle', value: round1(bare!.idleRss / MiB), unit: 'MiB' };
    const variants = [
      [`built as shipped (node ${shippedArgs.join(' ')})`, shipped],
      ['built, default heap (node dist/agent/main.js)', bundle],
      ['tsx (npm run agent)', tsx],
    ] as const;
    for (const [label, s] of variants) {
      if (!s) {
        figures.push({ name: `agent ${label}`, value: NaN, unit: 'ms', note: 'no bundle: npm run build:agent failed' });
        continue;
      }
      const rss = (name: string, bytes: number, goal: boolean): Figure => ({
        name: `agent ${label}: ${name}`,
        value: round1(bytes / MiB),
        unit: 'MiB',
        baseline: bareRss,
        ratio: round1(bytes / bare!.idleRss),
        ...(goal ? { goal: `≤ ${GOAL_RSS_MB} MB (${round1((GOAL_RSS_MB * 1e6) / MiB)} MiB)`, met: bytes <= GOAL_RSS_MB * 1e6 } : {}),
      });
      figures.push(
        { name: `agent ${label}: spawn to ready`, value: round1(s.readyMs), unit: 'ms', baseline: bareReady, ratio: round1(s.readyMs / bare!.readyMs), goal: `≤ ${GOAL_READY_MS} ms`, met: s.readyMs <= GOAL_READY_MS },
        { name: `agent ${label}: CPU time to ready`, value: round1(s.readyCpuMs), unit: 'ms', baseline: bareCpu, ratio: round1(s.readyCpuMs / Math.max(bare!.readyCpuMs, 10)) },
        rss('RSS idle', s.idleRss, true),
        rss('RSS peak under a burst of scans', s.burstPeakRss, false),
        rss('RSS a second after the burst', s.afterBurstRss, false),
      );
    }
    return figures;
  },
};
