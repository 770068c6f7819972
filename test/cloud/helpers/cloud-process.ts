/**
 * The cloud as its own process (cloud/src/main.ts through tsx, as `npm run cloud` starts it),
 * configured through the environment only. Resolves once it logs the URL it listens on. Node loads
 * tsx as a hook (`--import tsx`) so that signals reach the cloud itself, not a wrapper process.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface CloudProcess {
  url: string;
  proc: ChildProcess;
  /** Everything it wrote so far (stdout and stderr). */
  output(): string;
  /** SIGTERM and wait for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

export function runCloudProcess(env: Record<string, string>): { proc: ChildProcess; exited: Promise<number | null>; output: () => string } {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'cloud/src/main.ts'], {
    // The embedded broker on a free port: the machine's Mosquitto may hold 1883.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MQTT_BROKER_PORT: '0', SANDBOX_FIRST_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, exited, output: () => out };
}

export async function startCloudProcess(env: Record<string, string>): Promise<CloudProcess> {
  const { proc, exited, output } = runCloudProcess({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (): void => {
      for (const line of output().split('\n')) {
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          if (entry.msg === 'cloud listening' && entry.url) {
            proc.stdout?.off('data', onData);
            resolve(entry.url);
            return;
          }
        } catch {
          // not a log line
        }
      }
    };
    proc.stdout?.on('data', onData);
    void exited.then((code) => reject(new Error(`cloud process exited with ${code}:\n${output()}`)));
  });
  return {
    url,
    proc,
    output,
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}
