/**
 * better-sqlite3 prepares a statement on every `prepare()`, and Kysely's SQLite driver calls it
 * for every query: on the order path that parse and plan was about a tenth of the CPU. The SQL of
 * a query built by Kysely is the same text on every call (values are parameters), so statements
 * are kept by their text, per connection, the least recently used dropped beyond a bound
 * (queries with `in (...)` lists produce one text per list length).
 *
 * A cached statement is used by one query at a time: better-sqlite3 runs `all()`/`run()` to the
 * end synchronously, and the one connection serialises queries. Only `iterate()` keeps a statement
 * busy across awaits, so a streamed query gets a fresh statement of its own.
 *
 * The connections registered as direct (`runsDirectly`) are also those on which prepared.ts runs
 * its queries without Kysely: a transaction's (which holds the connection) and the reading
 * connection (which has no transactions). Kysely's layers of promises around a synchronous call
 * cost more than many of the statements.
 */
import type { Database as BetterSqliteDatabase, Statement } from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const MAX_STATEMENTS = 500;

const caches = new WeakMap<BetterSqliteDatabase, Map<string, Statement>>();

/** The connection's prepared statement for `sql`, prepared on first use. */
export function cachedStatement(db: BetterSqliteDatabase, sql: string, max = MAX_STATEMENTS): Statement {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map<string, Statement>()));
  let stmt = cache.get(sql);
  if (stmt) {
    // Map keeps insertion order: re-inserting marks it most recently used.
    cache.delete(sql);
  } else {
    stmt = db.prepare(sql);
    if (cache.size >= max) cache.delete(cache.keys().next().value!);
  }
  cache.set(sql, stmt);
  return stmt;
}

export function withStatementCache(db: BetterSqliteDatabase, max = MAX_STATEMENTS): SqliteDatabase {
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const stmt = cachedStatement(db, sql, max);
      return {
        reader: stmt.reader,
        all: (parameters) => stmt.all(parameters),
        run: (parameters) => stmt.run(parameters),
        iterate: (parameters) => db.prepare(sql).iterate(parameters),
      };
    },
  };
}

/** Keyed by Kysely instance (of any schema). */
const connections = new WeakMap<object, BetterSqliteDatabase>();
const direct = new WeakMap<object, BetterSqliteDatabase>();

/** Which better-sqlite3 connection a Kysely instance runs on; `runsDirectly`: see above. */
export function registerSqlite(db: object, connection: BetterSqliteDatabase, runsDirectly: boolean): void {
  connections.set(db, connection);
  if (runsDirectly) direct.set(db, connection);
}

export function sqliteConnectionOf(db: object): BetterSqliteDatabase | undefined {
  return connections.get(db);
}

/** The connection a prepared query may run on without Kysely, if `db` is one of those. */
export function directSqlite(db: object): BetterSqliteDatabase | undefined {
  return direct.get(db);
}
