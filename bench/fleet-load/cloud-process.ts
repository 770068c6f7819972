/**
 * `npm run cloud` as a child process of its own (node with tsx, as the script runs it), so that
 * its memory and CPU are its own: resident set size and CPU seconds read from /proc, and the
 * cloud's view of its lockers read from its SQLite file (read-only, beside its WAL writer).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const MAIN = fileURLToPath(new URL('../../cloud/src/main.ts', import.meta.url));
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ; 100 on Linux). */
const TICKS = 100;

export interface CloudProcessSettings {
  fleetFile: string;
  sqlitePath: string;
  port: number;
  /** Embedded broker port (without mqttUrl). */
  brokerPort: number;
  mqttUrl?: string;
  mqttUser: { username: string; password: string };
  /** Extra node options, e.g. `--cpu-prof` to profile the cloud under the fleet. */
  nodeOptions?: string[];
  /** More settings of the cloud (docs/operations.md), e.g. RELEASE_PUBLIC_KEYS. */
  env?: Record<string, string>;
}

export interface CloudView {
  /** Online with the current connection's hello answered. */
  online: number;
  /** Every command of the locker acked. */
  caughtUp: number;
}

export class CloudProcess {
  readonly #settings: CloudProcessSettings;
  #child: ChildProcess | undefined;
  #db: Database.Database | undefined;
  #stderr = '';

  constructor(settings: CloudProcessSettings) {
    this.#settings = settings;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#settings.port}`;
  }

  get pid(): number {
    const pid = this.#child?.pid;
    if (pid === undefined) throw new Error('the cloud is not running');
    return pid;
  }

  /** Starts it and waits until /health answers. */
  async start(): Promise<void> {
    const s = this.#settings;
    const env: Record<string, string> = {
      FLEET_FILE: s.fleetFile,
      SQLITE_PATH: s.sqlitePath,
      PORT: String(s.port),
      HOST: '127.0.0.1',
      MQTT_BROKER_HOST: '127.0.0.1',
      MQTT_BROKER_PORT: String(s.brokerPort),
      MQTT_USERNAME: s.mqttUser.username,
      MQTT_PASSWORD: s.mqttUser.password,
      LOG_LEVEL: 'warn',
      ...(s.mqttUrl ? { MQTT_URL: s.mqttUrl } : {}),
      ...s.env,
    };
    this.#stderr = '';
    const child = spawn(process.execPath, [...(s.nodeOptions ?? []), '--import', 'tsx', MAIN], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr?.on('data', (chunk: Buffer) => (this.#stderr = (this.#stderr + chunk.toString()).slice(-4_000)));
    this.#child = child;
    const until = Date.now() + 300_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the cloud exited with ${child.exitCode}: ${this.#stderr}`);
      const ok = await fetch(`${this.url}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > until) throw new Error(`the cloud did not start: ${this.#stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    this.#db ??= new Database(s.sqlitePath, { readonly: true, fileMustExist: true });
  }

  /** SIGTERM, waits for the exit. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  }

  close(): void {
    this.#db?.close();
    this.#db = undefined;
  }

  rssBytes(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024;
  }

  /** User plus system CPU seconds of the process so far. */
  cpuSeconds(): number {
    const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command name: state is field 3, utime 14 and stime 15 (1-based, proc(5)).
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  }

  view(): CloudView {
    const db = this.#db;
    if (!db) throw new Error('the cloud is not started');
    return db
      .prepare(
        `SELECT coalesce(sum(online = 1 AND hello_conn = presence_conn), 0) AS online,
                coalesce(sum(applied_cseq = next_cseq - 1), 0) AS caughtUp FROM lockers`,
      )
      .get() as CloudView;
  }
}
