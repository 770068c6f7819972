/**
 * The cloud as a user starts it: `npm run cloud` as a child process, with a fleet file derived
 * from the example fleet (docs/fleet.md) whose sandbox marketplace sends its notifications to the
 * walk-through's receiver, and a fresh data directory. The child runs in a process group of its
 * own so that stopping it also stops the sandbox locker processes it started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const SANDBOX_MARKETPLACE = 'sandbox-shop';

export interface SandboxReceiver {
  url: string;
  login: string;
  password: string;
  caFile: string;
  hmacSecret: string;
}

interface FleetFile {
  marketplaces: { id: string; receiver?: unknown }[];
}

/** The example fleet with the sandbox marketplace's receiver replaced; every other entry as it is. */
export function writeDerivedFleet(exampleFile: string, target: string, receiver: SandboxReceiver): void {
  const fleet = JSON.parse(readFileSync(exampleFile, 'utf8')) as FleetFile & Record<string, unknown>;
  const sandbox = fleet.marketplaces.find((m) => m.id === SANDBOX_MARKETPLACE);
  if (!sandbox) throw new Error(`${exampleFile} has no marketplace ${SANDBOX_MARKETPLACE}`);
  sandbox.receiver = { ...receiver, bodyForm: 'object' };
  // The schema reference is relative to the example's place; the copy lives elsewhere.
  delete fleet.$schema;
  writeFileSync(target, JSON.stringify(fleet, null, 2));
}

/** A port free right now (for settings left at 0, the cloud's URL must be known before it starts). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** Settings of the caller's environment that would point the child at another database or broker. */
const FOREIGN_SETTINGS = ['DATABASE_URL', 'PG_SCHEMA', 'SQLITE_PATH', 'MQTT_URL', 'MQTT_ENABLED', 'MQTT_PASSWORD', 'FLEET_FILE', 'SANDBOX_LOCKERS', 'PORT', 'HOST'];
const KEPT_OUTPUT_CHARS = 8000;

export interface CloudChildOptions {
  repoDir: string;
  dataDir: string;
  fleetFile: string;
  port: number;
  brokerPort: number;
  timeoutSeconds: number;
}

export class CloudChild {
  #output = '';
  readonly #exited: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    const keep = (chunk: Buffer): void => {
      this.#output = (this.#output + chunk.toString('utf8')).slice(-KEPT_OUTPUT_CHARS);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.#exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static start(options: CloudChildOptions): CloudChild {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of FOREIGN_SETTINGS) delete env[name];
    Object.assign(env, {
      PORT: String(options.port),
      MQTT_BROKER_PORT: String(options.brokerPort),
      SQLITE_PATH: join(options.dataDir, 'cloud.sqlite'),
      FLEET_FILE: options.fleetFile,
      SANDBOX_DATA_DIR: join(options.dataDir, 'sandbox'),
      // The sandbox locker on free ports: the walk-through may run beside `npm start` or another cloud.
      SANDBOX_FIRST_PORT: '0',
      SANDBOX_TIMEOUT_SECONDS: String(options.timeoutSeconds),
      LOG_LEVEL: 'warn',
    });
    const child = spawn('npm', ['run', '-s', 'cloud'], { cwd: options.repoDir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    return new CloudChild(child, `http://127.0.0.1:${options.port}`);
  }

  /** The last lines the cloud wrote, for a failure report. */
  get output(): string {
    return this.#output;
  }

  /** Resolves when `GET /health/ready` answers 200; fails when the child exits first or after the timeout. */
  async ready(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.#exited.then(() => (exited = true));
    for (;;) {
      if (exited) throw new Error('the cloud exited before it was ready');
      const ok = await fetch(`${this.url}/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`the cloud was not ready within ${timeoutMs / 1000} s`);
      // The start is the one event without a notification of its own: its readiness is asked for.
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** SIGTERM to the child's process group (the cloud stops its sandbox lockers), SIGKILL if it lingers. */
  async stop(graceMs = 20_000): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined || this.child.exitCode !== null || this.child.signalCode !== null) return;
    const signal = (s: NodeJS.Signals): void => {
      try {
        process.kill(-pid, s);
      } catch {
        // The group is gone already.
      }
    };
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(timer);
    // Whatever of the group outlived its leader.
    signal('SIGKILL');
  }
}
