/**
 * better-sqlite3 prepares a statement on every `prepare()`, and Kysely's SQLite driver calls it
 * for every query: on the order path that parse and plan was about a tenth of the CPU. The SQL of
 * a query built by Kysely is the same text on every call (values are parameters), so statements
 * are kept by their text, the least recently used dropped beyond a bound (queries with `in (...)`
 * lists produce one text per list length).
 *
 * A cached statement is used by one query at a time: better-sqlite3 runs `all()`/`run()` to the
 * end synchronously, and the one connection serialises queries. Only `iterate()` keeps a statement
 * busy across awaits, so a streamed query gets a fresh statement of its own.
 */
import type { Database as BetterSqliteDatabase, Statement } from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const MAX_STATEMENTS = 500;

export function withStatementCache(db: BetterSqliteDatabase, max = MAX_STATEMENTS): SqliteDatabase {
  const cache = new Map<string, Statement>();
  const cached = (sql: string): Statement => {
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
  };
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      const stmt = cached(sql);
      return {
        reader: stmt.reader,
        all: (parameters) => stmt.all(parameters),
        run: (parameters) => stmt.run(parameters),
        iterate: (parameters) => db.prepare(sql).iterate(parameters),
      };
    },
  };
}
