/**
 * Throwaway cloud databases for tests: a temporary SQLite file, or a fresh PostgreSQL schema in
 * DATABASE_URL's database that is dropped again on close.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { type CloudDatabase, type DatabaseOptions, type Engine, openDatabase } from '../../cloud/src/db/database.js';

export interface TestDatabase extends CloudDatabase {
  /** What a second process needs to open the same database. */
  readonly location: { databaseUrl?: string; sqlitePath?: string; pgSchema?: string };
}

/** The engines to run a suite on: SQLite always, PostgreSQL when DATABASE_URL is set. */
export function testEngines(): Engine[] {
  return process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** The PostgreSQL server the suites and benches may use (DATABASE_URL), if any. */
export function testDatabaseUrl(): string | undefined {
  return process.env.DATABASE_URL || undefined;
}

/** The PostgreSQL pool's size and sharing (database.ts); defaults: 8 connections, the cloud's sharing. */
export type TestPool = Partial<Pick<DatabaseOptions, 'poolSize' | 'callerShare' | 'callerQueue'>>;

export async function openTestDatabase(engine: Engine, pool: TestPool = {}): Promise<TestDatabase> {
  if (engine === 'postgres') {
    const databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) throw new Error('DATABASE_URL is not set');
    const pgSchema = `t_${randomBytes(6).toString('hex')}`;
    const cdb = await openDatabase({ databaseUrl, pgSchema, poolSize: 8, ...pool });
    await cdb.migrate();
    return {
      ...cdb,
      db: cdb.db,
      engine: cdb.engine,
      location: { databaseUrl, pgSchema },
      async close() {
        await cdb.close();
        const admin = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl, max: 1 }) }) });
        await sql`drop schema if exists ${sql.id(pgSchema)} cascade`.execute(admin);
        await admin.destroy();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'cloud-db-'));
  const sqlitePath = join(dir, 'cloud.sqlite');
  const cdb = await openDatabase({ sqlitePath });
  await cdb.migrate();
  return {
    ...cdb,
    db: cdb.db,
    engine: cdb.engine,
    location: { sqlitePath },
    async close() {
      await cdb.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
