/**
 * Every entry point stops cleanly when its npm process is signalled, the way a process manager or
 * CI stops it: `npm start`, `npm run cloud` and `npm run agent` are started through npm, npm's own
 * pid gets SIGTERM or SIGINT, and afterwards no process of the tree is left and its port is free.
 * Also the repeat rule of shared/src/stop-signals.ts: one Ctrl-C delivered twice is one request.
 */
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { onStopSignals, REPEAT_SIGNAL_GRACE_MS } from '../../shared/src/stop-signals.js';
import { startSimulator } from '../../sim/src/index.js';
import { testFleet } from '../cloud/helpers/fleet-fixtures.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'stop-signals-'));
  dirs.push(d);
  return d;
}

/** The pids below `root` now, read from /proc (no ps needed). */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(name), Number(fields[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (pid: number): void => {
    for (const [child, ppid] of parent) {
      if (ppid === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portRefuses(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** Starts `npm run <script>`, resolves with npm's process once `ready` matches its output. */
async function startThroughNpm(script: string, args: string[], env: Record<string, string>, ready: RegExp) {
  const npm = spawn('npm', ['run', '--silent', script, ...(args.length ? ['--', ...args] : [])], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = ready.exec(out);
      if (m) resolve(m[1] ?? '');
    };
    npm.stdout.on('data', onData);
    npm.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`npm run ${script} exited with ${code}:\n${out}`)));
  });
  return { npm, url, exited, output: () => out };
}

async function expectStopped(started: Awaited<ReturnType<typeof startThroughNpm>>, signal: NodeJS.Signals): Promise<void> {
  const tree = descendants(started.npm.pid!);
  expect(tree.length).toBeGreaterThan(0);
  started.npm.kill(signal);
  await started.exited;
  // npm exits when its child does; the child must not outlive it (it used to, orphaned, holding its ports).
  for (const pid of tree) {
    const deadline = Date.now() + 20_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid), `pid ${pid} of npm run's tree still runs:\n${started.output()}`).toBe(false);
  }
  expect(await portRefuses(started.url)).toBe(true);
}

describe('entry points stop when npm is signalled', { timeout: 120_000 }, () => {
  it('npm start stops on SIGTERM to npm', async () => {
    const dir = tempDir();
    const env = { DEMO_DATA_DIR: dir, PORT: '0', MQTT_BROKER_PORT: '0', DEMO_RECEIVER_PORT: '0', DEMO_SCREEN_PORT: '0', DEMO_SIM_PORT: '0', DEMO_HARDWARE_PORT: '0', SANDBOX_FIRST_PORT: '0' };
    const started = await startThroughNpm('start', [], env, /Cloud API +(http:\/\/[^/\s]+)/);
    await expectStopped(started, 'SIGTERM');
    expect(started.output()).toMatch(/stopped; the state is kept/);
  });

  it('npm run cloud stops on SIGINT to npm', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'fleet.json'), JSON.stringify(testFleet()));
    const env = { PORT: '0', HOST: '127.0.0.1', MQTT_BROKER_PORT: '0', SANDBOX_FIRST_PORT: '0', LOG_LEVEL: 'info', SQLITE_PATH: join(dir, 'cloud.sqlite'), FLEET_FILE: join(dir, 'fleet.json') };
    const started = await startThroughNpm('cloud', [], env, /"url":"(http:[^"]+)","msg":"cloud listening"/);
    await expectStopped(started, 'SIGINT');
  });

  it('npm run agent stops on SIGTERM to npm', async () => {
    const dir = tempDir();
    const sim = await startSimulator({ buses: [{ name: 'main', family: 'kerong-cu16', boards: 1 }], scanner: false });
    try {
      const config = {
        lockerId: '101',
        buses: [sim.busConfig('main')],
        // Nobody listens there: the agent works offline, which is all this needs.
        mqtt: { url: 'mqtt://127.0.0.1:9', password: 'unused' },
        dbPath: join(dir, 'agent.sqlite'),
        screen: { host: '127.0.0.1', port: 0 },
      };
      writeFileSync(join(dir, 'agent.json'), JSON.stringify(config));
      const started = await startThroughNpm('agent', ['--config', join(dir, 'agent.json')], { LOG_LEVEL: 'warn' }, /screen: (http:\/\/\S+)/);
      await expectStopped(started, 'SIGTERM');
    } finally {
      await sim.stop();
    }
  });
});

describe('the repeat rule', () => {
  function world() {
    const target = new EventEmitter() as EventEmitter & { exit: (code: number) => void; codes: number[] };
    target.codes = [];
    target.exit = (code: number) => target.codes.push(code);
    let now = 0;
    let finish: () => void = () => undefined;
    let stops = 0;
    onStopSignals(
      () => {
        stops++;
        return new Promise<void>((resolve) => (finish = resolve));
      },
      { target: target as unknown as NodeJS.Process, now: () => now },
    );
    return { target, advance: (ms: number) => (now += ms), finish: () => finish(), stops: () => stops };
  }

  it('takes a signal delivered twice at once (terminal and npm) as one request', async () => {
    const w = world();
    w.target.emit('SIGINT');
    w.target.emit('SIGINT');
    expect(w.stops()).toBe(1);
    expect(w.target.codes).toEqual([]);
    w.finish();
    await new Promise((r) => setImmediate(r));
    expect(w.target.codes).toEqual([0]);
  });

  it('stops at once on a signal sent again after the grace', () => {
    const w = world();
    w.target.emit('SIGTERM');
    w.advance(REPEAT_SIGNAL_GRACE_MS);
    w.target.emit('SIGINT');
    expect(w.stops()).toBe(1);
    expect(w.target.codes).toEqual([1]);
  });
});
