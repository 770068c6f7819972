/**
 * A child process of a fault-suite run (the cloud, an agent) under a small supervisor: started
 * with `node --import tsx` (one process, so signals reach it), up once it writes `ready <url>`,
 * restarted when it dies as systemd would restart a service. A crash point it was armed with
 * makes it write `crash <json>` and SIGKILL itself; the supervisor records the crash, starts it
 * again and resolves `crashed()` once the new life is up. Any other death is recorded as
 * unexpected (the checker fails the run on it).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CRASH, type ChildOrder, type CrashPoint, READY } from './child-support.js';

const ROOT = join(import.meta.dirname, '../..');
const START_TIMEOUT_MS = 60_000;
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
  #waiters: { point: CrashPoint; resolve: (c: CrashRecord) => void }[] = [];
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

  /** Arms a crash point: the next time the child passes it, it kills itself. */
  arm(point: CrashPoint): void {
    this.#send({ arm: point });
  }

  disarm(): void {
    this.#send({ disarm: true });
  }

  /** Resolves once the child crashed at `point` and is up again. */
  crashed(point: CrashPoint): Promise<CrashRecord> {
    return new Promise((resolve) => this.#waiters.push({ point, resolve }));
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

  #send(order: ChildOrder): void {
    const proc = this.#proc;
    if (proc?.connected) proc.send(order);
  }

  #launch(): Promise<void> {
    this.#lives++;
    const proc = spawn(process.execPath, ['--import', 'tsx', this.script, ...this.args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...this.env, FAULT_LOG: this.logFile },
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
      setTimeout(() => {
        if (this.#stopping) return;
        this.#launch().then(
          () => {
            if (!record) return;
            this.crashes.push(record);
            for (const w of this.#waiters.filter((x) => x.point === record.point)) w.resolve(record);
            this.#waiters = this.#waiters.filter((x) => x.point !== record.point);
          },
          (err: unknown) => this.unexpected.push(`${this.name} did not come back: ${err instanceof Error ? err.message : String(err)}`),
        );
      }, RESTART_DELAY_MS);
    });
    return ready;
  }
}
