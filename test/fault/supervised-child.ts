/**
 * A child process of a fault-suite run (the cloud, an agent) under a small supervisor: started
 * with `node --import tsx` (one process, so signals reach it), up once it writes `ready <url>`,
 * restarted when it dies as systemd would restart a service. A crash point is armed in one life
 * of the process, which answers once armed; it makes that life write `crash <json>` and SIGKILL
 * itself. The supervisor records the crash and starts it again; the next life starts disarmed, so
 * it can never die at a point before it is ready. Any other death is recorded as unexpected (the
 * checker fails the run on it).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CRASH, type ChildOrder, type ChildReply, type CrashPoint, READY } from './child-support.js';

const ROOT = join(import.meta.dirname, '../..');
/** Bounds a start (it ends at the child's `ready` line) only to report a hang; generous for a loaded machine. */
const START_TIMEOUT_MS = 120_000;
const RESTART_DELAY_MS = 300;

export interface CrashRecord {
  point: CrashPoint;
  detail: Record<string, unknown>;
  /** ms since the run started. */
  at: number;
}

export class SupervisedChild {
  readonly crashes: CrashRecord[] = [];
  /** Deaths that no armed crash point explains (exit code or signal). */
  readonly unexpected: string[] = [];
  #proc: ChildProcess | undefined;
  #url: string | undefined;
  #up = false;
  #stopping = false;
  #lives = 0;
  /** How far the shared clock is ahead of real time; every life starts with it. */
  #clockOffsetMs = 0;
  #deathWaiters: { point: CrashPoint; resolve: (c: CrashRecord) => void }[] = [];
  #upWaiters: (() => void)[] = [];

  constructor(
    readonly name: string,
    private readonly script: string,
    private readonly args: string[],
    private readonly env: Record<string, string>,
    /** The child's own log file (FAULT_LOG); its stderr is appended there too. */
    readonly logFile: string,
    private readonly startedAt: number,
  ) {}

  /** Its URL (the cloud's API, an agent's screen); the same over restarts (fixed ports). */
  get url(): string {
    if (!this.#url) throw new Error(`${this.name} has not started`);
    return this.#url;
  }

  /** Running and past `ready`. */
  get up(): boolean {
    return this.#up;
  }

  get lives(): number {
    return this.#lives;
  }

  async start(): Promise<void> {
    this.#stopping = false;
    await this.#launch();
  }

  /**
   * Arms a crash point in the life that is up now: the next time it passes the point, it kills
   * itself. True once that life answered armed; false when no life is up or it ended first (it
   * was never armed then, and the next life starts disarmed).
   */
  arm(point: CrashPoint): Promise<boolean> {
    return this.#order({ arm: point }, (r) => 'armed' in r && r.armed === point);
  }

  /** Disarms the life that is up now (a later life starts disarmed anyway). */
  async disarm(): Promise<void> {
    await this.#order({ disarm: true }, (r) => 'disarmed' in r);
  }

  /**
   * Moves this child's shared clock to `offsetMs` ahead of real time: the life that is up now
   * (resolves once it answered) and every later life. False when no life is up to answer (the next
   * one starts with the offset).
   */
  setClockOffset(offsetMs: number): Promise<boolean> {
    this.#clockOffsetMs = offsetMs;
    return this.#order({ clockOffsetMs: offsetMs }, (r) => 'clockOffsetMs' in r && r.clockOffsetMs === offsetMs);
  }

  /** Resolves when a life dies at `point` (before it is started again). */
  diedAt(point: CrashPoint): Promise<CrashRecord> {
    return new Promise((resolve) => this.#deathWaiters.push({ point, resolve }));
  }

  /** Resolves when the child is up (at once if it is). */
  whenUp(): Promise<void> {
    return this.#up ? Promise.resolve() : new Promise((resolve) => this.#upWaiters.push(resolve));
  }

  /** SIGTERM (a graceful stop) and wait for the exit; no restart. */
  async stop(): Promise<void> {
    this.#stopping = true;
    const proc = this.#proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }

  /** The last lines of its log (for the report of a failed run). */
  logTail(lines = 30): string {
    if (!existsSync(this.logFile)) return '(no log)';
    return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  }

  #order(order: ChildOrder, answered: (r: ChildReply) => boolean): Promise<boolean> {
    const proc = this.#proc;
    if (!this.#up || !proc?.connected) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (ok: boolean): void => {
        proc.off('message', onMessage);
        proc.off('exit', onExit);
        resolve(ok);
      };
      const onMessage = (reply: ChildReply): void => {
        if (answered(reply)) done(true);
      };
      const onExit = (): void => done(false);
      proc.on('message', onMessage);
      proc.once('exit', onExit);
      proc.send(order, (err) => {
        if (err) done(false);
      });
    });
  }

  #launch(): Promise<void> {
    this.#lives++;
    const proc = spawn(process.execPath, ['--import', 'tsx', this.script, ...this.args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...this.env, FAULT_LOG: this.logFile, FAULT_CLOCK_OFFSET: String(this.#clockOffsetMs) },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.#proc = proc;
    let crash: CrashRecord | undefined;
    proc.stderr?.on('data', (chunk: Buffer) => appendFileSync(this.logFile, chunk));
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name} did not start in time:\n${this.logTail()}`)), START_TIMEOUT_MS);
      createInterface({ input: proc.stdout! }).on('line', (line) => {
        if (line.startsWith(`${READY} `)) {
          clearTimeout(timer);
          this.#url = line.slice(READY.length + 1).trim();
          this.#up = true;
          for (const w of this.#upWaiters.splice(0)) w();
          resolve();
        } else if (line.startsWith(`${CRASH} `)) {
          const { point, ...detail } = JSON.parse(line.slice(CRASH.length + 1)) as { point: CrashPoint } & Record<string, unknown>;
          crash = { point, detail, at: Date.now() - this.startedAt };
        }
      });
      proc.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (!this.#up) reject(new Error(`${this.name} exited (${code ?? signal}) before it was ready:\n${this.logTail()}`));
      });
    });
    proc.once('exit', (code, signal) => {
      this.#up = false;
      if (this.#proc !== proc || this.#stopping) return;
      if (!crash) this.unexpected.push(`${this.name} died (${code ?? signal})`);
      const record = crash;
      if (record) {
        this.crashes.push(record);
        for (const w of this.#deathWaiters.filter((x) => x.point === record.point)) w.resolve(record);
        this.#deathWaiters = this.#deathWaiters.filter((x) => x.point !== record.point);
      }
      setTimeout(() => {
        if (this.#stopping) return;
        this.#launch().catch((err: unknown) => this.unexpected.push(`${this.name} did not come back: ${err instanceof Error ? err.message : String(err)}`));
      }, RESTART_DELAY_MS);
    });
    return ready;
  }
}
