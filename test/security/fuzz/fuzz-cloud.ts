/**
 * The cloud under fuzzing: cloud-entry.ts as a child process on a throwaway database (SQLite or
 * a PostgreSQL schema) with the cloud API tests' fleet. `reset()` brings the database back to the
 * provisioned fleet plus a few orders and a route sheet made through the API; `restart()` replaces
 * a cloud that stopped answering; `snapshot()` dumps every table.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../cloud/src/config.js';
import type { Engine } from '../../../cloud/src/db/database.js';
import { KEYS, orderBody, routeBody, testFleet } from '../../cloud/helpers/fleet-fixtures.js';
import { DEFAULT_NOW } from '../../cloud/helpers/test-cloud.js';
import { type TestDatabase, openTestDatabase } from '../../helpers/cloud-db.js';
import { type DatabaseSnapshot, snapshotDatabase, tableNames } from './db-snapshot.js';

/** Tables the fleet file fills; reset keeps them (the fleet reload brings them back in line). */
const FLEET_TABLES = new Set(['marketplaces', 'api_keys', 'partners', 'partner_marketplaces', 'partner_lockers', 'lockers', 'operators']);

/** Seeded data: ids the generators draw from, and a marker only shop-a's order carries. */
export const SEED = {
  secret: 'FZ-SECRET-7f3a9c',
  orderA: 'FZ-A1',
  orderB: 'FZ-B1',
  barcodeA: 'FZ-A1-P1',
  barcodeB: 'FZ-B1-P1',
  courier: 'courier-1',
  route: 'route-1',
} as const;

export interface FuzzCloud {
  url(): string;
  readonly db: TestDatabase;
  readonly bodyLimit: number;
  reset(): Promise<void>;
  restart(): Promise<void>;
  snapshot(): Promise<DatabaseSnapshot>;
  stop(): Promise<void>;
}

interface Child {
  proc: ChildProcess;
  url: string;
  exited: Promise<void>;
}

function startChild(env: Record<string, string>): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/security/fuzz/cloud-entry.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  // The cloud never outlives the suite, also when the suite ends abruptly.
  const killOnExit = (): void => void proc.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) =>
    proc.once('exit', () => {
      process.off('exit', killOnExit);
      resolve();
    }),
  );
  let errors = '';
  proc.stderr?.on('data', (d: Buffer) => (errors = (errors + d.toString()).slice(-4000)));
  return new Promise<Child>((resolve, reject) => {
    let out = '';
    proc.stdout?.on('data', (d: Buffer) => {
      if (out === undefined) return;
      out += d.toString();
      const ready = /ready (\S+)\n/.exec(out);
      if (ready) resolve({ proc, url: ready[1]!, exited });
    });
    void exited.then(() => reject(new Error(`fuzz cloud exited before it was ready:\n${errors}`)));
  });
}

export async function startFuzzCloud(engine: Engine): Promise<FuzzCloud> {
  const db = await openTestDatabase(engine);
  const dir = mkdtempSync(join(tmpdir(), 'fuzz-fleet-'));
  const fleetFile = join(dir, 'fleet.json');
  writeFileSync(fleetFile, JSON.stringify(testFleet()));
  const { databaseUrl, pgSchema, sqlitePath } = db.location;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    PORT: '0',
    HOST: '127.0.0.1',
    FLEET_FILE: fleetFile,
    FUZZ_NOW: DEFAULT_NOW,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, PG_SCHEMA: pgSchema ?? '', DB_POOL_SIZE: '4' } : { SQLITE_PATH: sqlitePath ?? '' }),
  };
  const bodyLimit = loadConfig(env).bodyLimitBytes;
  let child: Child;
  try {
    child = await startChild(env);
  } catch (err) {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  // A stalled cloud does not run its SIGTERM handler; the database is thrown away anyway.
  const kill = async (): Promise<void> => {
    if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill('SIGKILL');
    await child.exited;
  };

  const call = async (method: string, path: string, key: [string, string], body?: unknown): Promise<void> => {
    const res = await fetch(`${child.url}${path}`, {
      method,
      headers: { [key[0]]: key[1], ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (res.status !== 200) throw new Error(`${method} ${path} while resetting: ${res.status} ${await res.text()}`);
  };

  return {
    url: () => child.url,
    db,
    bodyLimit,
    async reset() {
      for (const table of await tableNames(db)) {
        if (FLEET_TABLES.has(table) || table.startsWith('kysely_')) continue;
        await db.db.deleteFrom(table as never).execute();
      }
      await db.db.updateTable('lockers').set({ next_cseq: 1 }).execute();
      await call('POST', '/operator/fleet/reload', ['X-Operator-Api-Key', KEYS.operator]);
      const shopA: [string, string] = ['X-Service-Api-Key', KEYS.shopA];
      const shopB: [string, string] = ['X-Service-Api-Key', KEYS.shopB];
      const secretItem = { count: 1, barcode: SEED.barcodeA, name: SEED.secret, subjectType: 1, price: 100, totalSum: 100, taxId: 1, taxSystemId: 1 };
      await call('PUT', '/api/v4/auth/delivery/smartorder/create', shopA, orderBody(SEED.orderA, { number: SEED.secret, clientInvoice: { cart: { items: [secretItem], prePaymentSum: 100 } } }));
      await call('PUT', '/api/v4/auth/delivery/smartorder/create', shopB, orderBody(SEED.orderB));
      await call('PUT', '/api/v1/auth/couriers/courier-with-route', ['Partner-Api-Key', KEYS.partner], routeBody({ externalId: SEED.courier }, { externalId: SEED.route }));
    },
    async restart() {
      await kill();
      child = await startChild(env);
    },
    snapshot: () => snapshotDatabase(db),
    async stop() {
      await kill();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
