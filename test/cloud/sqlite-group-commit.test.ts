/**
 * SQLite group commit through lockerTransaction: transactions that wait for the connection share
 * one transaction, each in a savepoint; a failing one is undone alone; every caller is answered
 * only once its data is committed (seen by another connection to the same file).
 */
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockerTransaction, type Tx } from '../../cloud/src/db/transaction.js';
import { openTestDatabase, type TestDatabase } from '../helpers/cloud-db.js';

let tdb: TestDatabase;
let reader: BetterSqlite3.Database;

beforeEach(async () => {
  tdb = await openTestDatabase('sqlite');
  await sql`create table probe (name text primary key)`.execute(tdb.db);
  reader = new BetterSqlite3(tdb.location.sqlitePath, { readonly: true });
});

afterEach(async () => {
  reader.close();
  await tdb.close();
});

const insert = (tx: Tx, name: string) => sql`insert into probe (name) values (${name})`.execute(tx);
/** What another connection sees committed. */
const committed = (): string[] => (reader.prepare('select name from probe order by name').all() as { name: string }[]).map((r) => r.name);

function deferred(): { promise: Promise<void>; release: () => void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe('SQLite group commit', () => {
  it('answers each waiting transaction after its data is committed, undoing a failing one alone', async () => {
    const gate = deferred();
    const started = deferred();
    const seenAtAnswer = new Map<string, string[]>();
    const run = (name: string, fn: (tx: Tx) => Promise<void>) =>
      lockerTransaction(tdb, [1], fn).then(() => seenAtAnswer.set(name, committed()));
    // The first holds the connection until the others wait for it.
    const first = run('a', async (tx) => {
      await insert(tx, 'a');
      started.release();
      await gate.promise;
    });
    await started.promise;
    const others = [
      run('b', (tx) => insert(tx, 'b').then(() => undefined)),
      run('c', async (tx) => {
        await insert(tx, 'c');
        await insert(tx, 'a'); // duplicate key: this transaction fails
      }),
      run('d', (tx) => insert(tx, 'd').then(() => undefined)),
    ];
    gate.release();
    const results = await Promise.allSettled([first, ...others]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(committed()).toEqual(['a', 'b', 'd']);
    for (const name of ['a', 'b', 'd']) expect(seenAtAnswer.get(name)).toContain(name);
  });

  it('reads committed data only through the reading connection, and every commit at once', async () => {
    const gate = deferred();
    const started = deferred();
    const pending = lockerTransaction(tdb, [1], async (tx) => {
      await insert(tx, 'a');
      started.release();
      await gate.promise;
    });
    await started.promise;
    const names = async () => (await sql<{ name: string }>`select name from probe`.execute(tdb.reads)).rows.map((r) => r.name);
    // The writer is held by the open transaction; the reading connection answers meanwhile.
    expect(await names()).toEqual([]);
    gate.release();
    await pending;
    expect(await names()).toEqual(['a']);
  });

  it('fails every member whose work a lost transaction took, and runs the next transaction anew', async () => {
    const gate = deferred();
    const started = deferred();
    const first = lockerTransaction(tdb, [1], async (tx) => {
      await insert(tx, 'a');
      started.release();
      await gate.promise;
    });
    await started.promise;
    // Ends the common transaction behind the group's back, as SQLite does on some errors.
    const breaking = lockerTransaction(tdb, [1], async (tx) => {
      await sql`rollback`.execute(tx);
    });
    gate.release();
    const results = await Promise.allSettled([first, breaking]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(committed()).toEqual([]);
    await lockerTransaction(tdb, [1], (tx) => insert(tx, 'e'));
    expect(committed()).toEqual(['e']);
  });
});
