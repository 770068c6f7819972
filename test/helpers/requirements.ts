/**
 * Suites that need something beyond Node.js (PostgreSQL, a Mosquitto binary or URL, socat,
 * Chromium, promtool, amtool) ask here. On a bare machine they are skipped with the reason printed; under CI
 * (CI=true), where .ci/run provides all of them, a missing one fails the run instead.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export type Requirement = 'postgres' | 'mqtt-url' | 'mosquitto' | 'socat' | 'chromium' | 'promtool' | 'amtool' | 'systemd-analyze';

function onPath(bin: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;
}

export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p): p is string => !!p && existsSync(p));
}

/** The machine's Mosquitto for suites and benchmarks that run against it too (MQTT_URL), if set. */
export function externalBrokerUrl(): string | undefined {
  return process.env.MQTT_URL || undefined;
}

function missingReason(req: Requirement): string | undefined {
  switch (req) {
    case 'postgres':
      return process.env.DATABASE_URL ? undefined : 'DATABASE_URL is not set';
    case 'mqtt-url':
      return process.env.MQTT_URL ? undefined : 'MQTT_URL is not set';
    case 'mosquitto':
      return onPath('mosquitto') && onPath('mosquitto_passwd') ? undefined : 'mosquitto / mosquitto_passwd not on PATH';
    case 'socat':
      return onPath('socat') ? undefined : 'socat not on PATH';
    case 'promtool':
      return onPath('promtool') ? undefined : 'promtool not on PATH (Debian package prometheus)';
    case 'amtool':
      return onPath('amtool') ? undefined : 'amtool not on PATH (Debian package prometheus-alertmanager)';
    case 'systemd-analyze':
      return onPath('systemd-analyze') ? undefined : 'systemd-analyze not on PATH (Debian package systemd)';
    case 'chromium':
      return chromiumPath() ? undefined : 'no Chromium at CHROMIUM_PATH, /usr/bin/chromium or /usr/bin/chromium-browser';
  }
}

/** The test file that asked, from the call stack (for the skip message). */
function callerFile(): string | undefined {
  const lines = new Error().stack?.split('\n') ?? [];
  const hit = lines.map((l) => /(test\/[^\s:)]+\.test\.ts)/.exec(l)?.[1]).find((f) => f !== undefined);
  return hit;
}

/**
 * Returns true when every requirement is present. Otherwise prints why the suite is skipped and
 * returns false, or throws under CI so that a skip there is a failure.
 * Use: `describe.runIf(requires('postgres'))('...', () => {...})`.
 */
export function requires(...reqs: Requirement[]): boolean {
  const missing = reqs.map((r) => [r, missingReason(r)] as const).filter(([, why]) => why !== undefined);
  if (missing.length === 0) return true;
  const text = missing.map(([r, why]) => `${r}: ${why}`).join('; ');
  if (process.env.CI === 'true' || process.env.CI === '1') {
    throw new Error(`required under CI but missing: ${text}`);
  }
  console.warn(`[skipped] ${callerFile() ?? 'a suite'} needs ${text}`);
  return false;
}
