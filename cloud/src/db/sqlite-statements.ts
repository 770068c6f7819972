/**
 * better-sqlite3 behind Kysely with its prepared statements kept by SQL text. Kysely's SQLite
 * driver prepares every query again; compiling the same few dozen statements over and over was
 * a tenth of the cloud's CPU when thousands of lockers said hello. Kysely runs one query at a
 * time on its single SQLite connection and reads each result whole (`all`, `run`), so a statement
 * is never in use twice at once. Statements whose text varies (IN lists of any length) are the
 * reason for the bound: the oldest goes first.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

export function cachingStatements(db: BetterSqlite3.Database, max = 500): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = db.prepare(sql);
        if (statements.size >= max) statements.delete(statements.keys().next().value!);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
