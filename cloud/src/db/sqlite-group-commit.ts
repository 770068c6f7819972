/**
 * Group commit on SQLite. The one connection runs one transaction at a time, and each commit
 * writes every page it touched to the WAL: under load the commits cost more than the statements.
 * Transactions that arrive while one runs therefore join it: each runs in a
 * savepoint of the common `BEGIN IMMEDIATE`, one after the other (they never interleave, as
 * before), and the group commits once. Every caller is answered only after that commit:
 * - a member that throws is rolled back to its savepoint alone and gets its own error (after the
 *   commit of the others, so that what it does next sees their data);
 * - when the transaction itself fails (a savepoint cannot be rolled back, the commit fails),
 *   everything is rolled back and every member whose work was lost gets that error.
 * Alone, a transaction starts as soon as the connection is free; its commit waits one turn of the
 * event loop. Requests reach their transactions while a group runs because their reads outside
 * transactions go to a connection of their own (CloudDatabase.reads).
 */
// From node:timers/promises: a test's fake timers replace the global setImmediate, not this one.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';
import { cachedStatement, directSqlite, registerSqlite, sqliteConnectionOf } from './sqlite-statement-cache.js';

type Tx = Kysely<Database>;

/** At most this many transactions share a commit, so that queries outside them get their turn. */
const MAX_MEMBERS = 64;

interface Member {
  fn: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { member: Member; ok: true; value: unknown } | { member: Member; ok: false; error: unknown };

class GroupCommit {
  readonly #db: Tx;
  readonly #waiting: Member[] = [];
  #draining = false;

  constructor(db: Tx) {
    this.#db = db;
  }

  run<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.#draining) void this.#drain();
    });
  }

  /** Runs groups until no transaction waits; every member is settled by #group, which never throws. */
  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#waiting.length > 0) await this.#group();
    } finally {
      this.#draining = false;
    }
  }

  async #group(): Promise<void> {
    const outcomes: Outcome[] = [];
    let running: Member | undefined;
    let failure: { error: unknown } | undefined;
    try {
      await this.#db.connection().execute(async (conn) => {
        // The group holds the connection: prepared queries may run on it directly.
        const connection = sqliteConnectionOf(this.#db);
        if (connection) registerSqlite(conn, connection, true);
        await exec(conn, 'begin immediate');
        try {
          // Members that arrive while this group runs join it, up to the bound. Statements on
          // SQLite finish synchronously, so a group's work is one chain of microtasks that no I/O
          // interrupts: one turn of the event loop before the commit lets requests whose input
          // is pending reach their transaction and join.
          for (;;) {
            while (this.#waiting.length > 0 && outcomes.length < MAX_MEMBERS) {
              running = this.#waiting.shift()!;
              outcomes.push(await runInSavepoint(conn, running));
              running = undefined;
            }
            if (outcomes.length >= MAX_MEMBERS) break;
            await nextTurn();
            if (this.#waiting.length === 0) break;
          }
          await exec(conn, 'commit');
        } catch (err) {
          await exec(conn, 'rollback').catch(() => undefined);
          throw err;
        }
      });
    } catch (err) {
      failure = { error: err };
    }
    for (const o of outcomes) {
      if (!o.ok) o.member.reject(o.error);
      else if (failure) o.member.reject(failure.error);
      else o.member.resolve(o.value);
    }
    // The member whose savepoint could not be undone; or, when the BEGIN failed (another process
    // held the write lock past the busy timeout), the next waiting one, as it would have alone.
    if (failure) (running ?? (outcomes.length === 0 ? this.#waiting.shift() : undefined))?.reject(failure.error);
  }
}

/**
 * One member in its savepoint. Its own error is an outcome; an error undoing it means the
 * transaction is lost (SQLite rolls back the whole transaction on some errors) and is thrown.
 */
async function runInSavepoint(conn: Tx, member: Member): Promise<Outcome> {
  await exec(conn, 'savepoint grp');
  let value: unknown;
  try {
    value = await member.fn(conn);
  } catch (error) {
    await exec(conn, 'rollback to savepoint grp');
    await exec(conn, 'release savepoint grp');
    return { member, ok: false, error };
  }
  await exec(conn, 'release savepoint grp');
  return { member, ok: true, value };
}

/** A statement of the group's own, on the connection it holds (no Kysely layers when it can). */
async function exec(conn: Tx, text: string): Promise<void> {
  const connection = directSqlite(conn);
  if (connection) cachedStatement(connection, text).run();
  else await sql.raw(text).execute(conn);
}

const groups = new WeakMap<Tx, GroupCommit>();

/** Runs `fn` in a transaction on the SQLite database `db`, sharing its commit with others waiting. */
export function inGroupCommit<T>(db: Tx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  let group = groups.get(db);
  if (!group) groups.set(db, (group = new GroupCommit(db)));
  return group.run(fn);
}
