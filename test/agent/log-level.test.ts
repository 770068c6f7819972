/**
 * The agent's entry point reads LOG_LEVEL itself (shared code reads no environment) and refuses a
 * wrong one at start, naming the setting, like a wrong config file.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function runAgent(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'agent/src/main.ts', '--config', 'no-such-agent.json'], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr })));
}

describe('agent log level', () => {
  it('refuses a wrong LOG_LEVEL at start with exit code 2, naming the setting', async () => {
    const { code, stderr } = await runAgent({ LOG_LEVEL: 'loud' });
    expect(code).toBe(2);
    expect(stderr).toMatch(/LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "loud"/);
  });

  it('takes a valid LOG_LEVEL and goes on to the config file', async () => {
    const { code, stderr } = await runAgent({ LOG_LEVEL: 'debug' });
    expect(code).toBe(2);
    expect(stderr).not.toMatch(/LOG_LEVEL/);
    expect(stderr).toMatch(/no-such-agent\.json/);
  });
});
