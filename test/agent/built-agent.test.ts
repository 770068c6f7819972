/**
 * The agent as controllers run it: `npm run build:agent`'s bundle started with the command of the
 * systemd unit (its V8 flags included) against the simulator. It becomes ready, serves its page,
 * state and metrics, stops cleanly on SIGTERM, and, with tracing configured, loads the
 * OpenTelemetry chunk the build splits off. The bundle is built into a folder of its own under
 * dist/, where the native modules resolve from the repository's node_modules as on a controller.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedAgentArgs, shippedAgentCommand } from '../../scripts/shipped-agent-command.js';
import { startSimulator, type SimulatorHandle } from '../../sim/src/index.js';

const ROOT = resolve('.');
const OUT = join(ROOT, 'dist', `agent-under-test-${process.pid}`);

function run(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => child.once('exit', (code) => done(code)));
}

/** Resolves with the screen URL the agent prints once ready; rejects with its stderr if it exits first. */
function screenUrl(child: ChildProcess): Promise<string> {
  return new Promise((done, fail) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /screen: (\S+)\n/.exec(out)?.[1];
      if (url) done(url);
    });
    child.once('exit', (code) => fail(new Error(`the built agent exited with ${code}: ${err}`)));
  });
}

describe('the built agent, started as the systemd unit starts it', () => {
  let sim: SimulatorHandle;
  let dir: string;
  let agentArgs: string[];

  beforeAll(async () => {
    const build = run(['--import', 'tsx', 'scripts/build-agent.ts', '--outdir', OUT], {});
    build.stdout?.resume();
    build.stderr?.resume();
    expect(await exited(build)).toBe(0);
    sim = await startSimulator({ buses: [{ name: 'main', family: 'kerong-cu48', boards: 1 }], scanner: { suffix: 'crlf' } });
    dir = mkdtempSync(join(tmpdir(), 'built-agent-'));
    const config = join(dir, 'agent.json');
    writeFileSync(
      config,
      JSON.stringify({
        lockerId: '1',
        buses: [sim.busConfig('main', 'tcp')],
        scanner: sim.scannerConfig('tcp'),
        dbPath: join(dir, 'agent.sqlite'),
        screen: { host: '127.0.0.1', port: 0, defaultLanguage: 'en' },
      }),
    );
    expect(shippedAgentArgs(ROOT).at(-1)).toBe('releases/current/main.js');
    agentArgs = [...shippedAgentCommand(ROOT, join(OUT, 'main.js')), '--config', config];
  }, 120_000);

  afterAll(async () => {
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    rmSync(OUT, { recursive: true, force: true });
  });

  it('becomes ready, serves its page, state and metrics, and stops on SIGTERM with code 0', async () => {
    const child = run(agentArgs, {});
    const url = await screenUrl(child);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const state = await fetch(`${url}/api/state`);
    expect(state.status).toBe(200);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('agent_scans_total');
    const code = exited(child);
    child.kill('SIGTERM');
    expect(await code).toBe(0);
  }, 60_000);

  it('loads the tracing chunk when an OTLP endpoint is configured', async () => {
    // Nothing listens there: spans are dropped, but the SDK must load and start.
    const child = run(agentArgs, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    const url = await screenUrl(child);
    expect((await fetch(`${url}/api/state`)).status).toBe(200);
    const code = exited(child);
    child.kill('SIGTERM');
    expect(await code).toBe(0);
  }, 60_000);
});
