/**
 * A real cloud for API tests: startCloud() on a throwaway database of the given engine, the test
 * fleet written to a temporary file, a manual clock, listening on a free port. `call()` speaks real
 * HTTP with fetch.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { startCloud, type RunningCloud } from '../../../cloud/src/cloud.js';
import { loadConfig, type CloudConfigInput } from '../../../cloud/src/config.js';
import type { Engine } from '../../../cloud/src/db/database.js';
import type { FleetInput } from '../../../cloud/src/fleet/fleet-schema.js';
import type { RandomSource } from '../../../cloud/src/random.js';
import { type TestDatabase, openTestDatabase } from '../../helpers/cloud-db.js';
import { testFleet } from './fleet-fixtures.js';
import { ManualClock } from './manual-clock.js';

export interface CallOptions {
  key?: string;
  partnerKey?: string;
  operatorKey?: string;
  body?: unknown;
  /** Sent as is (overrides body). */
  rawBody?: string;
  contentType?: string | null;
  /** Further request headers (e.g. Accept-Language). */
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers loosely
  body: any;
}

export interface TestCloud {
  cloud: RunningCloud;
  db: TestDatabase;
  clock: ManualClock;
  fleetPath: string;
  call(method: string, path: string, opts?: CallOptions): Promise<Answer>;
  writeFleet(fleet: FleetInput): void;
  /** Back to a freshly provisioned fleet: no orders, couriers, commands or notifications. */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export const DEFAULT_NOW = '2030-03-04T09:00:00Z'; // Monday, 12:00 in Moscow

export async function startTestCloud(
  engine: Engine,
  opts: { fleet?: FleetInput; now?: string; config?: CloudConfigInput; random?: RandomSource; logger?: Logger } = {},
): Promise<TestCloud> {
  const db = await openTestDatabase(engine);
  const dir = mkdtempSync(join(tmpdir(), 'cloud-fleet-'));
  const fleetPath = join(dir, 'fleet.json');
  const writeFleet = (fleet: FleetInput): void => writeFileSync(fleetPath, JSON.stringify(fleet));
  writeFleet(opts.fleet ?? testFleet());
  const clock = new ManualClock(opts.now ?? DEFAULT_NOW);
  const config = loadConfig({}, { port: 0, host: '127.0.0.1', fleetFile: fleetPath, logLevel: 'silent', ...opts.config });
  let cloud: RunningCloud;
  try {
    cloud = await startCloud(config, { database: db, clock, ...(opts.random ? { random: opts.random } : {}), ...(opts.logger ? { logger: opts.logger } : {}) });
  } catch (err) {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const call = async (method: string, path: string, o: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key !== undefined) headers['X-Service-Api-Key'] = o.key;
    if (o.partnerKey !== undefined) headers['Partner-Api-Key'] = o.partnerKey;
    if (o.operatorKey !== undefined) headers['X-Operator-Api-Key'] = o.operatorKey;
    const payload = o.rawBody ?? (o.body !== undefined ? JSON.stringify(o.body) : undefined);
    if (payload !== undefined && o.contentType !== null) headers['Content-Type'] = o.contentType ?? 'application/json';
    const res = await fetch(`${cloud.url}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body };
  };

  return {
    cloud,
    db,
    clock,
    fleetPath,
    call,
    writeFleet,
    async reset() {
      const { db: kdb } = db;
      for (const table of ['order_transitions', 'parcels', 'orders', 'notifications', 'locker_commands', 'inbox_events', 'route_sheet_lockers', 'route_sheets', 'couriers', 'cells'] as const) {
        await kdb.deleteFrom(table).execute();
      }
      await kdb.updateTable('lockers').set({ next_cseq: 1 }).execute();
      clock.set(opts.now ?? DEFAULT_NOW);
      writeFleet(opts.fleet ?? testFleet());
      await cloud.reloadFleet();
    },
    async stop() {
      await cloud.stop();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
