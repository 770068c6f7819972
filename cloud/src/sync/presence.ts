/**
 * Presence of a locker: `presence_conn` is the highest connection counter seen and `online`
 * tells whether that connection is up. A lower counter never overrides a higher one; for the
 * same counter "offline" (the last will) wins over "online" (the birth), whatever the order
 * in which they arrive.
 */
import type { Tx } from '../db/transaction.js';

/** Returns true when the stored presence changed. */
export async function recordPresence(tx: Tx, lockerId: number, conn: number, online: boolean, at: number): Promise<boolean> {
  const result = await tx
    .updateTable('lockers')
    .set({ presence_conn: conn, online: online ? 1 : 0, last_seen_at: at })
    .where('id', '=', lockerId)
    .where((eb) =>
      online
        ? eb('presence_conn', '<', conn)
        : eb.or([eb('presence_conn', '<', conn), eb.and([eb('presence_conn', '=', conn), eb('online', '=', 1)])]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Any message from the locker proves it is reachable now. */
export async function touchLocker(tx: Tx, lockerId: number, at: number): Promise<void> {
  await tx.updateTable('lockers').set({ last_seen_at: at }).where('id', '=', lockerId).execute();
}

/**
 * Marks the connection `conn` as having said hello, unless a newer connection is already known:
 * commands are pushed only once the current connection's position is known.
 */
export async function recordHello(tx: Tx, lockerId: number, conn: number, commandTypes?: readonly string[]): Promise<void> {
  await tx
    .updateTable('lockers')
    .set({ hello_conn: conn, command_types: commandTypes ? JSON.stringify(commandTypes) : null })
    .where('id', '=', lockerId)
    .where('presence_conn', '<=', conn)
    .execute();
}
