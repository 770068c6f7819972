/**
 * A private Mosquitto for ACL tests and the fault-injection suite, started from deploy/mosquitto's own files: the config with
 * only the listener, file paths and persistence directory rewritten, the ACL file as it is, and
 * a password file made by deploy/mosquitto/passwords.sh (mosquitto_passwd) on a free port.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';
import { WAIT_BOUND_MS } from './eventually.js';

const DEPLOY = fileURLToPath(new URL('../../deploy/mosquitto/', import.meta.url));

export interface PrivateMosquitto {
  url: string;
  /** Stops the broker (SIGTERM: it saves its persistence file) and starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  // Bounded by time, generously (a loaded machine starts mosquitto slowly), not by a count of tries.
  const until = Date.now() + WAIT_BOUND_MS;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`mosquitto exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`mosquitto did not listen on ${port}`);
}

/** Rewrites the deployment config for a throwaway broker; every other setting stays as shipped. */
export function testConfig(deployConf: string, dir: string, port: number): string {
  const replaced = new Map<string, string>([
    ['listener', `listener ${port} 127.0.0.1`],
    ['password_file', `password_file ${join(dir, 'passwd')}`],
    ['acl_file', `acl_file ${join(dir, 'acl')}`],
    ['persistence_location', `persistence_location ${join(dir, 'data')}/`],
  ]);
  const lines = deployConf.split('\n').map((line) => {
    const key = line.trim().split(/\s+/)[0] ?? '';
    return replaced.get(key) ?? line;
  });
  // As root, Mosquitto would switch to the mosquitto user, which cannot read the temp files.
  if (process.getuid?.() === 0) lines.push('user root');
  return lines.join('\n');
}

function launch(dir: string): { child: ChildProcess; stderr: () => string } {
  const child = spawn('mosquitto', ['-c', join(dir, 'mosquitto.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stderr: () => stderr };
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** `users`: username -> password (lockers by id, cloud process users as named in the ACL). */
export async function startPrivateMosquitto(users: Record<string, string>): Promise<PrivateMosquitto> {
  const dir = mkdtempSync(join(tmpdir(), 'mosquitto-'));
  mkdirSync(join(dir, 'data'));
  const port = await freePort();
  writeFileSync(join(dir, 'secrets'), Object.entries(users).map(([u, p]) => `${u}:${p}\n`).join(''), { mode: 0o600 });
  execFileSync(join(DEPLOY, 'passwords.sh'), ['passwd', join(dir, 'secrets'), join(dir, 'passwd')]);
  copyFileSync(join(DEPLOY, 'acl'), join(dir, 'acl'));
  writeFileSync(join(dir, 'mosquitto.conf'), testConfig(readFileSync(join(DEPLOY, 'mosquitto.conf'), 'utf8'), dir, port));
  let running = launch(dir);
  const up = async (): Promise<void> => {
    try {
      await waitForPort(port, running.child);
    } catch (err) {
      running.child.kill('SIGKILL');
      throw new Error(`${(err as Error).message}: ${running.stderr()}`);
    }
  };
  try {
    await up();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    async restart() {
      await terminate(running.child);
      running = launch(dir);
      await up();
    },
    async stop() {
      await terminate(running.child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
