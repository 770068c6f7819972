/**
 * Claims a locker's stream for sending without waiting behind another process: on PostgreSQL
 * `SELECT ... FOR UPDATE SKIP LOCKED` on the locker row (a holder of the lock ends its own work
 * with a push that sees the same commands); on SQLite, a single process, `BEGIN IMMEDIATE`.
 */
import type { CloudDatabase } from '../db/database.js';
import { type Tx, lockerTransaction } from '../db/transaction.js';
import { lockLockerUnlessHeld } from '../repositories/locker-stream.js';

/** Runs `fn` holding the locker's row; undefined when another transaction holds it. */
export async function withClaimedLocker<T>(cdb: CloudDatabase, lockerId: number, fn: (tx: Tx) => Promise<T>): Promise<T | undefined> {
  if (cdb.engine === 'sqlite') return lockerTransaction(cdb, [lockerId], fn);
  return cdb.db.transaction().execute(async (tx) => {
    return (await lockLockerUnlessHeld(tx, lockerId)) ? fn(tx) : undefined;
  });
}
