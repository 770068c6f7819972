/**
 * Opens the cloud database: SQLite (better-sqlite3, WAL) by default, PostgreSQL when a
 * `postgres://` URL is given. Both run the same migrations and the same queries.
 */
import BetterSqlite3 from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { migrationProvider } from './migrations.js';
import type { Engine } from './engine.js';
import type { Database } from './schema.js';

export type { Engine } from './engine.js';

export interface DatabaseOptions {
  /** `postgres://...` selects PostgreSQL; otherwise SQLite at `sqlitePath`. */
  databaseUrl?: string | undefined;
  /** SQLite file (':memory:' for a throwaway database). */
  sqlitePath?: string | undefined;
  /** PostgreSQL schema to use (created if missing); lets tests and processes share one database. */
  pgSchema?: string | undefined;
  /** PostgreSQL pool size. */
  poolSize?: number | undefined;
}

export interface CloudDatabase {
  readonly db: Kysely<Database>;
  readonly engine: Engine;
  migrate(): Promise<void>;
  close(): Promise<void>;
}

// PostgreSQL returns int8 as text to avoid precision loss; our bigints are epoch milliseconds and
// sequence numbers, far below 2^53, so they are read as numbers.
const INT8_OID = 20;
const int8AsNumber = ((oid: number, format?: 'text' | 'binary'): unknown =>
  oid === INT8_OID ? (v: string) => Number(v) : (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser;

function openPostgres(url: string, schema: string | undefined, poolSize: number): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    types: { getTypeParser: int8AsNumber },
  });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

function openSqlite(path: string): Kysely<Database> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new BetterSqlite3(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  // Another cloud process (or a CLI) may hold the write lock for a moment.
  sqlite.pragma('busy_timeout = 5000');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
}

/** One round trip to the database (health checks); throws when it cannot be reached. */
export async function pingDatabase(cdb: CloudDatabase): Promise<void> {
  await sql`select 1`.execute(cdb.db);
}

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//.test(url);
}

export async function openDatabase(opts: DatabaseOptions): Promise<CloudDatabase> {
  const engine: Engine = isPostgresUrl(opts.databaseUrl) ? 'postgres' : 'sqlite';
  if (engine === 'postgres' && opts.pgSchema && !/^[a-z_][a-z0-9_]*$/.test(opts.pgSchema)) {
    throw new Error(`invalid PostgreSQL schema name: ${opts.pgSchema}`);
  }
  if (engine === 'postgres' && opts.pgSchema) {
    // Create the schema over a short-lived connection before the pool pins search_path to it.
    const admin = openPostgres(opts.databaseUrl!, undefined, 1);
    try {
      await sql`create schema if not exists ${sql.id(opts.pgSchema)}`.execute(admin);
    } finally {
      await admin.destroy();
    }
  }
  const db =
    engine === 'postgres'
      ? openPostgres(opts.databaseUrl!, opts.pgSchema, opts.poolSize ?? 10)
      : openSqlite(opts.sqlitePath ?? 'data/cloud.sqlite');

  return {
    db,
    engine,
    async migrate() {
      // Kysely looks for its migration tables in every schema unless told which one: with
      // several schemas in one database (tests, installations side by side) name ours.
      const migrator = new Migrator({
        db,
        provider: migrationProvider(engine),
        ...(engine === 'postgres' && opts.pgSchema ? { migrationTableSchema: opts.pgSchema } : {}),
      });
      const { error, results } = await migrator.migrateToLatest();
      const failed = results?.find((r) => r.status === 'Error');
      if (error || failed) {
        throw new Error(`database migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`);
      }
    },
    async close() {
      await db.destroy();
    },
  };
}
