/**
 * What the cloud depends on, checked on demand: the database (a ping with a time bound), the
 * broker link (connected or not, from the link's own state) and the fleet (loaded at start, or
 * kept by the database when no fleet file is configured). The readiness endpoint and the
 * metrics' up gauges both ask here, so "up" means one thing.
 */
import { pingDatabase, type CloudDatabase } from '../db/database.js';

/** A ping slower than this counts as down: a probe must answer in bounded time. */
export const DATABASE_PING_TIMEOUT_MS = 2_000;

export type CheckStatus = 'up' | 'down' | 'disabled';

export interface DependencyReport {
  ready: boolean;
  checks: {
    database: { status: 'up' | 'down'; latencyMs: number };
    broker: { status: CheckStatus };
    fleet: { status: 'up' | 'down'; source: 'file' | 'database' };
  };
}

export interface DependencySources {
  cdb: CloudDatabase;
  /** Whether the locker link is connected to its broker; undefined when this process runs no link. */
  brokerConnected(): boolean | undefined;
  /** Where the fleet comes from, and whether it is loaded. */
  fleet(): { source: 'file' | 'database'; loaded: boolean };
}

/** Pings the database within DATABASE_PING_TIMEOUT_MS; the time it took in ms, or null when it failed. */
export async function timedPing(cdb: CloudDatabase, timeoutMs = DATABASE_PING_TIMEOUT_MS): Promise<{ up: boolean; latencyMs: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const up = await Promise.race([pingDatabase(cdb).then(() => true, () => false), timeout]);
  clearTimeout(timer);
  return { up, latencyMs: Math.round((performance.now() - started) * 100) / 100 };
}

export async function checkDependencies(sources: DependencySources): Promise<DependencyReport> {
  const db = await timedPing(sources.cdb);
  const connected = sources.brokerConnected();
  const broker: CheckStatus = connected === undefined ? 'disabled' : connected ? 'up' : 'down';
  const fleet = sources.fleet();
  const checks: DependencyReport['checks'] = {
    database: { status: db.up ? 'up' : 'down', latencyMs: db.latencyMs },
    broker: { status: broker },
    fleet: { status: fleet.loaded ? 'up' : 'down', source: fleet.source },
  };
  return { ready: db.up && broker !== 'down' && fleet.loaded, checks };
}
