/**
 * The locker agent under its systemd unit, as systemd would run it, for tests on a machine
 * without systemd: the unit file of deploy/systemd is read and its commands run as written
 * (ExecStartPre, then ExecStart; `/usr/bin/node` is this Node, the paths are relative to the
 * test's install root as to WorkingDirectory). Restart=always after RestartSec (shortened by the
 * test), and the start limit: past StartLimitBurst starts within StartLimitIntervalSec the unit
 * fails and its OnFailure= unit runs (its ExecStart; the `+/bin/systemctl` lines are what this
 * supervisor does: start the agent again).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const UNITS = join(import.meta.dirname, '..', '..', 'deploy', 'systemd');

/** The keys of a unit file's sections (repeated keys keep every value, in order). */
export function readUnit(name: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const raw of readFileSync(join(UNITS, name), 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('[')) continue;
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    out.set(key, [...(out.get(key) ?? []), line.slice(eq + 1)]);
  }
  return out;
}

function one(unit: Map<string, string[]>, key: string): string | undefined {
  return unit.get(key)?.at(-1);
}

/** A unit's command as argv, with `/usr/bin/node` replaced by this Node. */
function argv(command: string): string[] {
  const [bin, ...args] = command.trim().split(/\s+/);
  if (bin !== '/usr/bin/node') throw new Error(`the test runs node commands only, not ${command}`);
  return [process.execPath, ...args];
}

export interface SupervisorOptions {
  /** The install root (WorkingDirectory). */
  root: string;
  /** Environment of every command (the unit's Environment= lines are replaced by these). */
  env: Record<string, string>;
  /** RestartSec, shortened for tests. */
  restartMs: number;
  /** Extra Node arguments put before the script (a test's --import preload). */
  nodeArgs?: string[];
}

export interface Life {
  pid: number;
  /** The version the agent said it runs ('agent started'), once it did. */
  version?: string;
  screenUrl?: string;
  exit?: { code: number | null; signal: string | null };
}

export class UnitSupervisor {
  readonly lives: Life[] = [];
  /** Each line the agent and the launcher wrote, parsed when JSON. */
  readonly lines: Record<string, unknown>[] = [];
  readonly #unit = readUnit('locker-agent.service');
  readonly #opts: SupervisorOptions;
  #child: ChildProcess | undefined;
  #running = false;
  #starts: number[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** Runs of the OnFailure unit. */
  failures = 0;

  constructor(opts: SupervisorOptions) {
    this.#opts = opts;
  }

  get current(): Life | undefined {
    return this.lives.at(-1);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#startOnce();
  }

  /** systemctl stop: SIGTERM (KillSignal), no restart. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }

  /** A power cut of the agent alone: SIGKILL; the supervisor restarts it as systemd would. */
  kill(): void {
    this.#child?.kill('SIGKILL');
  }

  #run(commandLine: string, what: string): number {
    const [node, ...args] = argv(commandLine);
    const r = spawnSync(node!, args, { cwd: this.#opts.root, env: this.#opts.env, encoding: 'utf8' });
    for (const text of [r.stdout, r.stderr]) for (const l of text.split('\n').filter(Boolean)) this.#record(l, what);
    return r.status ?? 1;
  }

  #startOnce(): void {
    if (!this.#running) return;
    const now = Date.now();
    const interval = Number(one(this.#unit, 'StartLimitIntervalSec') ?? 10) * 1000;
    const burst = Number(one(this.#unit, 'StartLimitBurst') ?? 5);
    this.#starts = [...this.#starts.filter((t) => now - t < interval), now];
    if (this.#starts.length > burst) {
      // The start limit: the unit fails, its OnFailure= unit runs and starts it again.
      this.failures += 1;
      this.#starts = [];
      const onFailure = readUnit(one(this.#unit, 'OnFailure')!);
      for (const cmd of onFailure.get('ExecStart') ?? []) this.#run(cmd, 'on-failure');
    }
    for (const cmd of this.#unit.get('ExecStartPre') ?? []) {
      if (this.#run(cmd, 'launcher') !== 0) return this.#scheduleRestart();
    }
    const [node, ...args] = argv(one(this.#unit, 'ExecStart')!);
    const child = spawn(node!, [...(this.#opts.nodeArgs ?? []), ...args], { cwd: this.#opts.root, env: this.#opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    const life: Life = { pid: child.pid ?? 0 };
    this.lives.push(life);
    createInterface({ input: child.stdout }).on('line', (l) => {
      const screen = /^screen: (\S+)$/.exec(l)?.[1];
      if (screen) life.screenUrl = screen;
      const rec = this.#record(l, 'agent');
      if (rec?.msg === 'agent started' && typeof rec.version === 'string') life.version = rec.version;
    });
    createInterface({ input: child.stderr }).on('line', (l) => this.#record(l, 'agent-stderr'));
    child.once('exit', (code, signal) => {
      life.exit = { code, signal };
      if (this.#child === child) this.#child = undefined;
      this.#scheduleRestart();
    });
  }

  #scheduleRestart(): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => this.#startOnce(), this.#opts.restartMs);
  }

  #record(line: string, source: string): Record<string, unknown> | undefined {
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line) as Record<string, unknown>;
    } catch {
      rec = { msg: line };
    }
    rec.source = source;
    this.lines.push(rec);
    if (process.env.UPDATE_TEST_LOG) process.stderr.write(`[${source}] ${line}\n`);
    return rec;
  }
}
