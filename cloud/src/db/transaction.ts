/**
 * Transactions that serialise per locker. Everything that reads cells and then reserves them, or
 * appends to a locker's command stream, runs inside `lockerTransaction`, so two requests (or two
 * cloud processes) never both see a cell as free:
 * - SQLite: `BEGIN IMMEDIATE` takes the database write lock before the first read (transactions
 *   waiting for the connection share one, each in a savepoint: sqlite-group-commit.ts);
 * - PostgreSQL: `SELECT ... FOR UPDATE` on the lockers' rows, in id order (no deadlocks).
 *
 * Inside the callback use only the `tx` handle: on SQLite the single connection is held by the
 * transaction, and a query on the outer `db` would wait for it forever.
 */
import { type Kysely, sql } from 'kysely';
import type { CloudDatabase } from './database.js';
import type { Database } from './schema.js';
import { inGroupCommit } from './sqlite-group-commit.js';

/** What repositories take: the database (`cdb.db`) outside a transaction, the transaction's `tx` inside one. */
export type Tx = Kysely<Database>;

export async function lockerTransaction<T>(
  cdb: CloudDatabase,
  lockerIds: readonly number[],
  fn: (tx: Tx) => Promise<T>,
  /** 'caller': the callback's first statement locks the one locker's row itself (a round trip less). */
  lock: 'here' | 'caller' = 'here',
): Promise<T> {
  if (cdb.engine === 'postgres') {
    return cdb.db.transaction().execute(async (tx) => {
      const ids = [...new Set(lockerIds)].sort((a, b) => a - b);
      if (ids.length > 0 && lock === 'here') {
        await tx.selectFrom('lockers').select('id').where('id', 'in', ids).orderBy('id').forUpdate().execute();
      }
      return fn(tx);
    });
  }
  return inGroupCommit(cdb.db, fn);
}

/**
 * Writes that need no transaction of their own (each statement is atomic, or a lost row is only a
 * record): on SQLite they join the group commit instead of committing alone, which costs a WAL
 * write each; on PostgreSQL they run as they are, without a BEGIN and COMMIT round trip.
 */
export function sharingCommit<T>(cdb: CloudDatabase, fn: (db: Tx) => Promise<T>): Promise<T> {
  return cdb.engine === 'sqlite' ? inGroupCommit(cdb.db, fn) : fn(cdb.db);
}

/**
 * Runs `fn` inside a savepoint of the transaction `tx`: when it throws, its statements are undone
 * and the transaction goes on (on PostgreSQL a failed statement otherwise aborts the whole
 * transaction). One name for every savepoint: both engines let a savepoint reuse a name, and
 * release or roll back the most recent of that name, so nesting works and the SQL text stays the
 * same (SQLite's statement cache keeps it).
 */
export async function withSavepoint<T>(tx: Tx, fn: () => Promise<T>): Promise<T> {
  await sql`savepoint sp`.execute(tx);
  try {
    const result = await fn();
    await sql`release savepoint sp`.execute(tx);
    return result;
  } catch (err) {
    await sql`rollback to savepoint sp`.execute(tx);
    await sql`release savepoint sp`.execute(tx);
    throw err;
  }
}

/** A transaction that touches no locker's cells or stream (still serialised on SQLite). */
export function transaction<T>(cdb: CloudDatabase, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return lockerTransaction(cdb, [], fn);
}

const FLEET_LOCK_KEY = 734_201; // any constant: names the advisory lock of fleet reloads

/**
 * The transaction of a fleet reload. On PostgreSQL an advisory lock serialises reloads of several
 * cloud processes, and every locker row is held (in id order) so no locker changes meanwhile.
 */
export async function fleetTransaction<T>(cdb: CloudDatabase, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (cdb.engine === 'sqlite') return lockerTransaction(cdb, [], fn);
  return cdb.db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(${FLEET_LOCK_KEY})`.execute(tx);
    await tx.selectFrom('lockers').select('id').orderBy('id').forUpdate().execute();
    return fn(tx);
  });
}
