/**
 * Queries built once and run many times. Building a query with Kysely and compiling it to SQL cost
 * more CPU on the reservation path than running it (docs/decisions.md, "Prepared statements"), and
 * the SQL of a query is the same text on every call: only its parameters change. A `prepared`
 * query is built once per dialect with placeholders standing for its named parameters, compiled,
 * and from then on run as that text with the call's values in the placeholders' places:
 * - SQLite keeps one prepared statement per text (sqlite-statement-cache.ts);
 * - PostgreSQL gets a named prepared statement per connection (database.ts asks
 *   `statementName()`), so the server parses and plans it once per connection, not per call.
 *
 * A parameter must stand for one value: not for a list (`in (...)`), nor for something Kysely
 * turns into SQL text. Queries whose shape varies by call are built as usual.
 */
import { CompiledQuery, type Compilable, type Kysely, PostgresAdapter } from 'kysely';
import type { Database } from './schema.js';
import { cachedStatement, directSqlite } from './sqlite-statement-cache.js';

type Db = Kysely<Database>;

/**
 * Marks a write whose result nobody reads. Inside a PostgreSQL transaction it is sent without
 * waiting for its answer and travels with the next query that is waited for (database.ts,
 * `pipelined`); its failure fails that query or the COMMIT. SQLite runs it as any other.
 */
const DEFERRED = '/* deferred */ ';

export function isDeferredWrite(sql: string): boolean {
  return sql.startsWith(DEFERRED);
}

/** Runs a write whose result nobody reads: inside a PostgreSQL transaction it costs no round trip. */
export async function deferWrite(db: Db, query: Compilable<unknown> | CompiledQuery<unknown>): Promise<void> {
  const compiled = 'compile' in query ? query.compile() : query;
  await db.executeQuery(CompiledQuery.raw(DEFERRED + compiled.sql, [...compiled.parameters]));
}

/** Marks a placeholder among a compiled query's parameters: no caller's value starts with it. */
const PLACEHOLDER = '\u0000prepared-parameter:';

interface Compiled {
  sql: string;
  /** The compiled parameters; where `names[i]` is set, the call's value of that name replaces it. */
  parameters: readonly unknown[];
  names: readonly (string | undefined)[];
}

/** At most this many texts get a PostgreSQL statement name; more run unnamed (names are never reused). */
const MAX_NAMED = 1_000;
const names = new Map<string, string>();

/** The PostgreSQL statement name of a prepared query's SQL text; undefined for any other query. */
export function statementName(sql: string): string | undefined {
  return names.get(sql);
}

function nameStatement(sql: string): void {
  if (!names.has(sql) && names.size < MAX_NAMED) names.set(sql, `pq${names.size + 1}`);
}

/**
 * The dialect of an executor: the compiled text differs between SQLite and PostgreSQL. Kysely
 * exposes it only through its executor (marked internal, stable since 0.23; kysely is pinned).
 */
function dialectOf(db: Db): unknown {
  return (db as unknown as { getExecutor(): { adapter: object } }).getExecutor().adapter.constructor;
}

/** Which engine a query is built for, where the two need different SQL (row locks). */
export type Dialect = 'sqlite' | 'postgres';

type Build<P, R> = (db: Db, p: P, dialect: Dialect) => Compilable<R>;

/** Whether `db` runs on PostgreSQL (a transaction's handle there is its own, not shared). */
export function isPostgres(db: Db): boolean {
  return dialectOf(db) === PostgresAdapter;
}

export class PreparedQuery<P extends object, R> {
  readonly #build: Build<P, R>;
  readonly #compiled = new Map<unknown, Compiled>();

  constructor(build: Build<P, R>) {
    this.#build = build;
  }

  #compile(db: Db): Compiled {
    const dialect = dialectOf(db);
    let compiled = this.#compiled.get(dialect);
    if (!compiled) {
      const placeholders = new Proxy({}, { get: (_, name) => `${PLACEHOLDER}${String(name)}` }) as P;
      const query = this.#build(db, placeholders, dialect === PostgresAdapter ? 'postgres' : 'sqlite').compile();
      const parameters = query.parameters;
      compiled = {
        sql: query.sql,
        parameters,
        names: parameters.map((v) => (typeof v === 'string' && v.startsWith(PLACEHOLDER) ? v.slice(PLACEHOLDER.length) : undefined)),
      };
      if (dialect === PostgresAdapter) {
        nameStatement(query.sql);
        nameStatement(DEFERRED + query.sql);
      }
      this.#compiled.set(dialect, compiled);
    }
    return compiled;
  }

  /** The query as it runs with `params`: its SQL text and values. */
  compiled(db: Db, params: P): CompiledQuery<R> {
    const c = this.#compile(db);
    const values = c.parameters.map((v, i) => {
      const name = c.names[i];
      return name === undefined ? v : (params as Record<string, unknown>)[name];
    });
    return CompiledQuery.raw(c.sql, values);
  }

  async all(db: Db, params: P): Promise<R[]> {
    const compiled = this.compiled(db, params);
    const sqlite = directSqlite(db);
    if (sqlite) {
      const stmt = cachedStatement(sqlite, compiled.sql);
      if (!stmt.reader) {
        stmt.run(compiled.parameters);
        return [];
      }
      return stmt.all(compiled.parameters) as R[];
    }
    return (await db.executeQuery(compiled)).rows;
  }

  async first(db: Db, params: P): Promise<R | undefined> {
    return (await this.all(db, params))[0];
  }

  /** Runs a write whose result nobody reads (see `deferWrite`). */
  async defer(db: Db, params: P): Promise<void> {
    const sqlite = directSqlite(db);
    if (sqlite) {
      const compiled = this.compiled(db, params);
      cachedStatement(sqlite, compiled.sql).run(compiled.parameters);
      return;
    }
    await deferWrite(db, this.compiled(db, params));
  }

  /** Runs a write; answers the rows it changed. */
  async run(db: Db, params: P): Promise<number> {
    const compiled = this.compiled(db, params);
    const sqlite = directSqlite(db);
    if (sqlite) return cachedStatement(sqlite, compiled.sql).run(compiled.parameters).changes;
    return Number((await db.executeQuery(compiled)).numAffectedRows ?? 0);
  }
}

/** A query built once per dialect; `p.name` stands for the parameter `name` of each call. */
export function prepared<P extends object, R>(build: Build<P, R>): PreparedQuery<P, R> {
  return new PreparedQuery(build);
}

/** Most rows one `preparedRows` statement inserts; more go in further statements. */
const MAX_ROWS_PER_STATEMENT = 100;

/**
 * A deferred multi-row insert into `table` of the listed columns: one statement per number of
 * rows (each built once), at most MAX_ROWS_PER_STATEMENT rows a statement.
 */
export function preparedRows<T extends keyof Database, C extends keyof Database[T] & string>(
  table: T,
  columns: readonly C[],
): (db: Db, rows: readonly Record<C, unknown>[]) => Promise<void> {
  const byCount = new Map<number, PreparedQuery<Record<string, unknown>, unknown>>();
  const statement = (count: number): PreparedQuery<Record<string, unknown>, unknown> => {
    let query = byCount.get(count);
    if (!query) {
      query = prepared((db, p: Record<string, unknown>) =>
        db.insertInto(table).values(Array.from({ length: count }, (_, i) => Object.fromEntries(columns.map((c) => [c, p[`${c}${i}`]]))) as never),
      );
      byCount.set(count, query);
    }
    return query;
  };
  return async (db, rows) => {
    for (let from = 0; from < rows.length; from += MAX_ROWS_PER_STATEMENT) {
      const slice = rows.slice(from, from + MAX_ROWS_PER_STATEMENT);
      const values: Record<string, unknown> = {};
      slice.forEach((row, i) => {
        for (const c of columns) values[`${c}${i}`] = row[c];
      });
      await statement(slice.length).defer(db, values);
    }
  };
}
