/**
 * Opens the cloud database: SQLite (better-sqlite3, WAL) by default, PostgreSQL when a
 * `postgres://` URL is given. Both run the same migrations and the same queries.
 */
import BetterSqlite3 from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname } from 'node:path';
import {
  type DatabaseIntrospector,
  type DatabaseMetadataOptions,
  Kysely,
  Migrator,
  PostgresDialect,
  PostgresIntrospector,
  type PostgresDialectConfig,
  type PostgresPool,
  type PostgresPoolClient,
  SqliteDialect,
  type TableMetadata,
  sql,
} from 'kysely';
import pg from 'pg';
import { migrationProvider } from './migrations.js';
import { databaseLocation } from './database-url.js';
import { isDeferredWrite, statementName } from './prepared.js';
import type { Engine } from './engine.js';
import type { Database } from './schema.js';
import { BACKSTOP_AUTOCHECKPOINT_PAGES, startCheckpointer } from './sqlite-checkpointer.js';
import { registerSqlite, withStatementCache } from './sqlite-statement-cache.js';
import { CheckoutQueueFull, FairCheckout, type ReleaseSlot } from './fair-checkout.js';
import { currentPoolCaller, enablePoolCallers, SYSTEM_CALLER } from './pool-callers.js';
import { RetryLaterError } from '../errors.js';

export type { Engine } from './engine.js';

export interface DatabaseOptions {
  /** `postgres://...` selects PostgreSQL, `sqlite:<path>`/`file:<path>` a SQLite file; unset, SQLite at `sqlitePath`. */
  databaseUrl?: string | undefined;
  /** SQLite file (':memory:' for a throwaway database). */
  sqlitePath?: string | undefined;
  /** PostgreSQL schema to use (created if missing); lets tests and processes share one database. */
  pgSchema?: string | undefined;
  /** PostgreSQL pool size. */
  poolSize?: number | undefined;
  /** The fraction of the PostgreSQL pool one caller may hold at once (pool-callers.ts); default 0.5. */
  callerShare?: number | undefined;
  /** Checkouts one API caller may have waiting for the PostgreSQL pool; beyond, 429. Default 200. */
  callerQueue?: number | undefined;
}

/** How the PostgreSQL pool is shared among callers (fair-checkout.ts). */
interface PoolSharing {
  share: number;
  queueMax: number;
}

export interface CloudDatabase {
  readonly db: Kysely<Database>;
  /**
   * For reads outside transactions on hot paths, answered from committed data only. SQLite: a
   * second connection (WAL readers do not wait for the writer), so requests read while a group of
   * transactions holds the one writing connection, and reach their transaction in time to join
   * it; an in-memory database has no second connection and reads through `db`. PostgreSQL: `db`.
   */
  readonly reads: Kysely<Database>;
  /**
   * For health probes and metric scrapes, which must never wait behind the requests: SQLite's
   * reading connection (the writer may be held by a group of transactions); on PostgreSQL a
   * connection of its own, outside the request pool (which requests in flight may exhaust).
   */
  readonly probes: Kysely<Database>;
  readonly engine: Engine;
  migrate(): Promise<void>;
  close(): Promise<void>;
}

// PostgreSQL returns int8 as text to avoid precision loss; our bigints are epoch milliseconds and
// sequence numbers, far below 2^53, so they are read as numbers.
const INT8_OID = 20;
const int8AsNumber = ((oid: number, format?: 'text' | 'binary'): unknown =>
  oid === INT8_OID ? (v: string) => Number(v) : (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser;

/**
 * Kysely's PostgreSQL introspector reads the tables of every schema in the database and, for each
 * row, resolves the schema by name (has_schema_privilege(nspname), pg_get_serial_sequence(text)).
 * The Migrator calls it before every migration run, so a schema dropped by another process during
 * that scan (tests drop theirs; installations side by side come and go) failed our migration with
 * `schema "<theirs>" does not exist`. This introspector reads only our schema (the pool's, or the
 * connection's current schema) and looks everything up by oid, so other schemas cannot disturb it.
 */
class SchemaScopedPostgresIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;
  readonly #schema: string | undefined;

  constructor(db: Kysely<unknown>, schema: string | undefined) {
    this.#db = db;
    this.#schema = schema;
  }

  /** A plain read of pg_namespace: no name lookups, safe as it is. */
  getSchemas() {
    return new PostgresIntrospector(this.#db).getSchemas();
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const schema = this.#schema === undefined ? sql`current_schema()` : sql`${this.#schema}`;
    const { rows } = await sql<{
      column: string;
      not_null: boolean;
      has_default: boolean;
      table: string;
      table_type: string;
      schema: string;
      type: string;
      type_schema: string;
      column_description: string | null;
      auto_incrementing: boolean;
    }>`
      select a.attname as "column", a.attnotnull as not_null, a.atthasdef as has_default, c.relname as "table",
        c.relkind as table_type, ns.nspname as "schema", typ.typname as "type", dtns.nspname as type_schema,
        col_description(a.attrelid, a.attnum) as column_description,
        -- what pg_get_serial_sequence() finds, by oid: a sequence owned by the column (serial or identity)
        exists (
          select 1 from pg_catalog.pg_depend d join pg_catalog.pg_class s on s.oid = d.objid
          where d.classid = 'pg_catalog.pg_class'::regclass and d.refclassid = 'pg_catalog.pg_class'::regclass
            and d.refobjid = c.oid and d.refobjsubid = a.attnum and d.deptype in ('a', 'i') and s.relkind = 'S'
        ) as auto_incrementing
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_class c on a.attrelid = c.oid
      join pg_catalog.pg_namespace ns on c.relnamespace = ns.oid
      join pg_catalog.pg_type typ on a.atttypid = typ.oid
      join pg_catalog.pg_namespace dtns on typ.typnamespace = dtns.oid
      where ns.nspname = ${schema}
        and c.relkind in ('r', 'v', 'p')
        and has_schema_privilege(ns.oid, 'USAGE')
        and a.attnum >= 0 and not a.attisdropped
        and (${options.withInternalKyselyTables} or c.relname not in ('kysely_migration', 'kysely_migration_lock'))
      order by c.relname, a.attnum`.execute(this.#db);
    const tables = new Map<string, { name: string; isView: boolean; schema: string; columns: TableMetadata['columns'] }>();
    for (const r of rows) {
      let table = tables.get(r.table);
      if (!table) tables.set(r.table, (table = { name: r.table, isView: r.table_type === 'v', schema: r.schema, columns: [] }));
      table.columns.push({
        name: r.column,
        dataType: r.type,
        dataTypeSchema: r.type_schema,
        isAutoIncrementing: r.auto_incrementing,
        isNullable: !r.not_null,
        hasDefaultValue: r.has_default,
        ...(r.column_description !== null ? { comment: r.column_description } : {}),
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions) {
    return { tables: await this.getTables(options) };
  }
}

class SchemaScopedPostgresDialect extends PostgresDialect {
  readonly #schema: string | undefined;

  constructor(config: PostgresDialectConfig, schema: string | undefined) {
    super(config);
    this.#schema = schema;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Dialect signature
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SchemaScopedPostgresIntrospector(db, this.#schema);
  }
}

/** What a caller beyond its queue for the pool gets: code 4, HTTP 429, Retry-After. */
const RETRY_AFTER_SECONDS = 1;
function poolQueueFull(): RetryLaterError {
  return new RetryLaterError(
    `Слишком много запросов одновременно: повторите через ${RETRY_AFTER_SECONDS} с`,
    RETRY_AFTER_SECONDS,
    `Too many requests at once: retry in ${RETRY_AFTER_SECONDS} s`,
  );
}

/**
 * A checkout of the pool at the caller's turn (fair-checkout.ts), so no caller holds every
 * connection; the slot goes back with the connection.
 */
function fairlyShared(pool: pg.Pool, poolSize: number, sharing: PoolSharing): PostgresPool['connect'] {
  enablePoolCallers();
  const checkout = new FairCheckout({ capacity: poolSize, share: Math.max(1, Math.ceil(poolSize * sharing.share)), queueMax: sharing.queueMax });
  // One wrapper per connection (Kysely keeps its state per client object), told at each checkout what its release gives back.
  const wrappers = new WeakMap<PostgresPoolClient, { client: PostgresPoolClient; done: (() => void) | undefined }>();
  return async () => {
    const scope = currentPoolCaller();
    let releaseSlot: ReleaseSlot;
    // A request's queries sent at once wait as one request: only its first may be refused.
    const bounded = (scope?.refusable ?? false) && scope?.waiting === 0;
    if (scope) scope.waiting++;
    try {
      releaseSlot = await checkout.acquire(scope?.caller ?? SYSTEM_CALLER, { bounded, nested: (scope?.held ?? 0) > 0 });
    } catch (err) {
      throw err instanceof CheckoutQueueFull ? poolQueueFull() : err;
    } finally {
      if (scope) scope.waiting--;
    }
    let inner: PostgresPoolClient;
    try {
      inner = pipelined(await pool.connect());
    } catch (err) {
      releaseSlot();
      throw err;
    }
    let wrapper = wrappers.get(inner);
    if (!wrapper) {
      const w: { client: PostgresPoolClient; done: (() => void) | undefined } = {
        done: undefined,
        client: {
          // eslint-disable-next-line @typescript-eslint/unbound-method -- pipelined()'s query is a closure, not a method
          query: inner.query,
          release: () => {
            const done = w.done;
            w.done = undefined;
            inner.release();
            done?.();
          },
        },
      };
      wrappers.set(inner, (wrapper = w));
    }
    if (scope) {
      scope.held++;
      scope.refusable = false;
    }
    wrapper.done = () => {
      if (scope) scope.held--;
      releaseSlot();
    };
    return wrapper.client;
  };
}

function openPostgres(url: string, schema: string | undefined, poolSize: number, sharing?: PoolSharing): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    types: { getTypeParser: int8AsNumber },
    // Queries sent before earlier ones are answered travel together (see pipelined()).
    pipeline: true,
  });
  // An idle connection the server or the network dropped: the pool discards it and connects anew
  // when asked; unhandled, the pool's 'error' event would end the process.
  pool.on('error', () => undefined);
  const connect = sharing ? fairlyShared(pool, poolSize, sharing) : async () => pipelined(await pool.connect());
  const named: PostgresPool = { connect, end: () => pool.end() };
  return new Kysely<Database>({ dialect: new SchemaScopedPostgresDialect({ pool: named }, schema) });
}

const pipelinedClients = new WeakMap<pg.PoolClient, PostgresPoolClient>();

/** What a deferred write answers at once: nobody reads it (prepared.ts, `deferWrite`). */
const DEFERRED_RESULT = { command: 'INSERT', rowCount: 0, rows: [] };

/**
 * A pooled connection (in pg's pipeline mode) that saves round trips inside transactions:
 * - the queries of `prepared` (prepared.ts) run as named prepared statements: the server parses
 *   and plans each once per connection;
 * - `begin` and the writes marked as deferred (prepared.ts: writes whose result nobody reads) are
 *   sent at once and answered without waiting: they travel with the next query that is waited
 *   for, so a transaction's inserts cost no round trip of their own. The server answers in order,
 *   so when a waited query is answered every deferred write before it has been; the first that
 *   failed fails that query with its own error (the server would say only that the transaction
 *   is aborted), and a COMMIT after it fails too (the server rolled back and said so quietly).
 * Outside a transaction every query is waited for: its result may be read.
 */
function pipelined(client: pg.PoolClient): PostgresPoolClient {
  let wrapped = pipelinedClients.get(client);
  if (wrapped) return wrapped;
  let inTransaction = false;
  let pending: Promise<void>[] = [];
  let failure: { error: unknown } | undefined;
  // A connection lost while the client is checked out between two queries (a transaction waiting
  // on other work) is emitted on the client, where the pool listens only while it is idle: without
  // a listener it would end the process. The next query on it fails with the loss, and the pool
  // discards the client when it is released (pg marks it no longer queryable).
  client.on('error', () => undefined);
  // pg writes each protocol message of a query on its own: five system calls a query, and as many
  // wake-ups of the server. Corked until the end of the tick, a tick's queries leave in one write.
  const socket = (client as unknown as { connection?: { stream?: Socket } }).connection?.stream;
  let corked = false;
  const cork = (): void => {
    if (!socket || corked) return;
    corked = true;
    socket.cork();
    process.nextTick(() => {
      corked = false;
      socket.uncork();
    });
  };
  const send = (sql: string, parameters: readonly unknown[] | undefined): Promise<pg.QueryResult> => {
    cork();
    const name = statementName(sql);
    return name ? client.query({ name, text: sql, values: parameters as unknown[] }) : client.query(sql, parameters as unknown[]);
  };
  /** Waits for the deferred writes sent so far; throws (once) the first that failed. */
  const settle = async (): Promise<void> => {
    const waiting = pending;
    pending = [];
    await Promise.all(waiting);
    if (failure) {
      const { error } = failure;
      failure = undefined;
      throw error;
    }
  };
  const query = async (sql: unknown, parameters?: readonly unknown[]): Promise<unknown> => {
    if (typeof sql !== 'string') return client.query(sql as pg.Submittable);
    const begins = sql === 'begin';
    const ends = sql === 'commit' || sql === 'rollback';
    if ((begins || (inTransaction && isDeferredWrite(sql))) && !ends) {
      inTransaction = true;
      pending.push(
        send(sql, parameters).then(
          () => undefined,
          (error: unknown) => {
            failure ??= { error };
          },
        ),
      );
      return DEFERRED_RESULT;
    }
    if (ends) inTransaction = false;
    let result: pg.QueryResult;
    try {
      result = await send(sql, parameters);
    } catch (err) {
      await settle();
      throw err;
    }
    await settle();
    return result;
  };
  wrapped = { query: query as PostgresPoolClient['query'], release: () => client.release() };
  pipelinedClients.set(client, wrapped);
  return wrapped;
}

function openSqlite(path: string): Kysely<Database> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new BetterSqlite3(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  // Another cloud process (or a CLI) may hold the write lock for a moment.
  sqlite.pragma('busy_timeout = 5000');
  // Checkpoints run in a worker (sqlite-checkpointer.ts); the writer's own only as a backstop.
  if (path !== ':memory:') sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT_PAGES}`);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  // Outside a transaction, queries on it must queue behind the transaction holding it (Kysely's).
  registerSqlite(db, sqlite, false);
  return db;
}

/** The reading connection of a SQLite file (opened after the writer has set WAL mode). */
function openSqliteReader(path: string): Kysely<Database> {
  const sqlite = new BetterSqlite3(path, { readonly: true });
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  registerSqlite(db, sqlite, true);
  return db;
}

/** One round trip to the database (health checks), off the requests' path; throws when it cannot be reached. */
export async function pingDatabase(cdb: CloudDatabase): Promise<void> {
  await sql`select 1`.execute(cdb.probes);
}

export { isPostgresUrl } from './database-url.js';

export async function openDatabase(opts: DatabaseOptions): Promise<CloudDatabase> {
  const location = databaseLocation(opts.databaseUrl, opts.sqlitePath);
  const engine: Engine = location.engine;
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
  const sqlitePath = location.engine === 'sqlite' ? location.path : '';
  const db = engine === 'postgres' ? openPostgres(opts.databaseUrl!, opts.pgSchema, opts.poolSize ?? 10, { share: opts.callerShare ?? 0.5, queueMax: opts.callerQueue ?? 200 })
      : openSqlite(sqlitePath);
  const checkpointer = engine === 'sqlite' && sqlitePath !== ':memory:' ? startCheckpointer(sqlitePath) : undefined;
  // Opened on first use: the file's tables exist once the migrations have run.
  let reader: Kysely<Database> | undefined;
  const reads = (): Kysely<Database> => (reader ??= engine === 'sqlite' && sqlitePath !== ':memory:' ? openSqliteReader(sqlitePath) : db);
  let prober: Kysely<Database> | undefined;
  const probes = (): Kysely<Database> => (prober ??= engine === 'postgres' ? openPostgres(opts.databaseUrl!, opts.pgSchema, 1) : reads());

  return {
    db,
    engine,
    get reads() {
      return reads();
    },
    get probes() {
      return probes();
    },
    async migrate() {
      // With several schemas in one database (tests, installations side by side) Kysely must be
      // told which one holds its migration tables; the dialect's introspector reads only ours.
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
      await checkpointer?.stop();
      if (prober && prober !== reader && prober !== db) await prober.destroy();
      if (reader && reader !== db) await reader.destroy();
      await db.destroy();
    },
  };
}
