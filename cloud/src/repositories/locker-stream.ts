/**
 * A locker's two streams in the database: the command log (locker_commands) with its cursors on
 * the locker row (next, applied, sent), the inbox of the locker's events (inbox_events) with
 * `acked_dseq`, and the locker's presence and hello. Every function takes the executor the
 * caller holds; callers that change a stream hold the locker's row (lockerTransaction).
 */
import { sql } from 'kysely';
import type { Command, CommandBody, LockerEvent } from '../../../shared/src/protocol.js';
import { traceparentOf } from '../../../shared/src/tracing.js';
import { isPostgres, prepared, preparedRows } from '../db/prepared.js';
import type { Tx } from '../db/transaction.js';

/** The down stream's position: the next cseq to write, the agent's ack, the send cursor. */
export interface DownCursor {
  nextCseq: number;
  appliedCseq: number;
  /** Highest cseq published since the agent's last hello. */
  sentCseq: number;
  /** When the agent last made progress (a fresh send or an advancing ack). */
  sentAt: number | null;
}

/** The locker's connection as the link knows it. */
export interface LinkPresence {
  online: boolean;
  /** Highest connection counter seen. */
  presenceConn: number;
  /** Connection counter of the last hello answered. */
  helloConn: number;
}

export async function downCursor(db: Tx, lockerId: number): Promise<DownCursor | undefined> {
  const row = await db.selectFrom('lockers').select(['next_cseq', 'applied_cseq', 'sent_cseq', 'sent_at']).where('id', '=', lockerId).executeTakeFirst();
  return row && { nextCseq: row.next_cseq, appliedCseq: row.applied_cseq, sentCseq: row.sent_cseq, sentAt: row.sent_at };
}

const takeCseq = prepared((db, p: { lockerId: number }) =>
  db
    .updateTable('lockers')
    .set((eb) => ({ next_cseq: eb('next_cseq', '+', 1), occupancy_version: eb('occupancy_version', '+', 1) }))
    .where('id', '=', p.lockerId)
    .returning(['next_cseq', 'occupancy_version']),
);

const insertCommand = prepared((db, p: { lockerId: number; cseq: number; type: string; body: string; at: number; trace: string | null }) =>
  db.insertInto('locker_commands').values({ locker_id: p.lockerId, cseq: p.cseq, type: p.type, body: p.body, created_at: p.at, trace: p.trace }),
);

const setCursor = prepared((db, p: { lockerId: number; nextCseq: number; occupancyVersion: number }) =>
  db.updateTable('lockers').set({ next_cseq: p.nextCseq, occupancy_version: p.occupancyVersion }).where('id', '=', p.lockerId),
);

/** Cursors read under the locker's lock by a PostgreSQL transaction, by its handle. */
const knownCursors = new WeakMap<Tx, Map<number, { nextCseq: number; occupancyVersion: number }>>();

/**
 * The locker's next cseq and occupancy version, as the transaction `tx` read them holding the
 * locker's row: its appendCommand then needs no read of its own (a round trip on PostgreSQL).
 * Kept for PostgreSQL transactions only, whose handle is theirs alone (SQLite's group shares one).
 */
export function knowCursor(tx: Tx, lockerId: number, nextCseq: number, occupancyVersion: number): void {
  if (!isPostgres(tx)) return;
  let cursors = knownCursors.get(tx);
  if (!cursors) knownCursors.set(tx, (cursors = new Map<number, { nextCseq: number; occupancyVersion: number }>()));
  cursors.set(lockerId, { nextCseq, occupancyVersion });
}

/** A command as appended: its cseq, and the locker's occupancy version after it. */
export interface Appended {
  cseq: number;
  occupancyVersion: number;
}

/**
 * Appends a command to the locker's log under the locker's next cseq (taken from its row), with
 * the active span's traceparent when tracing is on. Every command moves the locker's occupancy
 * version too: every change of an order appends its upsert, so the version moves with every
 * change of the parcels that hold the locker's cells (lockers/occupancy-cache.ts).
 */
export async function appendCommand(db: Tx, lockerId: number, body: CommandBody, at: number): Promise<Appended> {
  const known = knownCursors.get(db)?.get(lockerId);
  if (known) {
    const cseq = known.nextCseq++;
    known.occupancyVersion++;
    await setCursor.defer(db, { lockerId, ...known });
    await insertCommand.defer(db, { lockerId, cseq, type: body.type, body: JSON.stringify(body), at, trace: traceparentOf() ?? null });
    return { cseq, occupancyVersion: known.occupancyVersion };
  }
  const locker = await takeCseq.first(db, { lockerId });
  if (!locker) throw new Error(`no locker ${lockerId}`);
  const cseq = locker.next_cseq - 1;
  await insertCommand.defer(db, { lockerId, cseq, type: body.type, body: JSON.stringify(body), at, trace: traceparentOf() ?? null });
  return { cseq, occupancyVersion: locker.occupancy_version };
}

/** Moves the send cursor. */
export async function setSent(db: Tx, lockerId: number, sentCseq: number, sentAt: number | null): Promise<void> {
  await db.updateTable('lockers').set({ sent_cseq: sentCseq, sent_at: sentAt }).where('id', '=', lockerId).execute();
}

/** Records the agent's cumulative ack; with `sent`, moves the send cursor in the same write. */
export async function setApplied(db: Tx, lockerId: number, appliedCseq: number, sent?: { sentCseq: number; sentAt: number }): Promise<void> {
  await db
    .updateTable('lockers')
    .set({ applied_cseq: appliedCseq, ...(sent ? { sent_cseq: sent.sentCseq, sent_at: sent.sentAt } : {}) })
    .where('id', '=', lockerId)
    .execute();
}

/** Continues the stream after `cseq`, which the agent has applied (the cloud's log ended before it). */
export async function continueStreamAfter(db: Tx, lockerId: number, cseq: number): Promise<void> {
  await db.updateTable('lockers').set({ next_cseq: cseq + 1, applied_cseq: cseq }).where('id', '=', lockerId).execute();
}

/** The logged commands with after < cseq <= upTo, in cseq order; `traceparent`: the recording span's. */
export async function commandsBetween(db: Tx, lockerId: number, after: number, upTo: number): Promise<Command[]> {
  const rows = await db
    .selectFrom('locker_commands')
    .select(['cseq', 'body', 'created_at', 'trace'])
    .where('locker_id', '=', lockerId)
    .where('cseq', '>', after)
    .where('cseq', '<=', upTo)
    .orderBy('cseq')
    .execute();
  return rows.map((r) => ({ ...(JSON.parse(r.body) as object), cseq: r.cseq, at: r.created_at, ...(r.trace ? { traceparent: r.trace } : {}) }) as Command);
}

/** Whether the log still holds the command `cseq`. */
export async function commandLogged(db: Tx, lockerId: number, cseq: number): Promise<boolean> {
  const row = await db.selectFrom('locker_commands').select('cseq').where('locker_id', '=', lockerId).where('cseq', '=', cseq).executeTakeFirst();
  return row !== undefined;
}

/** Deletes commands created before `olderThan` that their locker has applied; the count. */
export async function deleteAppliedCommands(db: Tx, olderThan: number): Promise<number> {
  const result = await db
    .deleteFrom('locker_commands')
    .where('created_at', '<', olderThan)
    .where((eb) =>
      eb('cseq', '<=', eb.selectFrom('lockers').select('lockers.applied_cseq').whereRef('lockers.id', '=', 'locker_commands.locker_id')),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Online lockers whose current connection said hello and that have commands not acked, by id. */
export async function lockersAwaitingCommands(db: Tx): Promise<number[]> {
  const rows = await db
    .selectFrom('lockers')
    .select('id')
    .where('online', '=', 1)
    .whereRef('hello_conn', '=', 'presence_conn')
    .where((eb) => eb('applied_cseq', '<', eb('next_cseq', '-', 1)))
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Every locker's ack position and the connection whose hello the cloud answered last. */
export async function lockerAckPositions(db: Tx): Promise<{ id: number; ackedDseq: number; helloConn: number }[]> {
  const rows = await db.selectFrom('lockers').select(['id', 'acked_dseq', 'hello_conn']).orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, ackedDseq: r.acked_dseq, helloConn: r.hello_conn ?? 0 }));
}

/** The highest dseq of the locker's events the cloud applied; undefined: no such locker. */
export async function ackedDseq(db: Tx, lockerId: number): Promise<number | undefined> {
  const row = await db.selectFrom('lockers').select('acked_dseq').where('id', '=', lockerId).executeTakeFirst();
  return row?.acked_dseq;
}

const lockedAckedDseqQuery = prepared((db, p: { lockerId: number }, dialect) => {
  const query = db.selectFrom('lockers').select('acked_dseq').where('id', '=', p.lockerId);
  return dialect === 'postgres' ? query.forUpdate() : query;
});

/** acked_dseq as the first statement of a transaction: it locks the locker's row too (PostgreSQL). */
export async function lockedAckedDseq(db: Tx, lockerId: number): Promise<number | undefined> {
  return (await lockedAckedDseqQuery.first(db, { lockerId }))?.acked_dseq;
}

/** Sets acked_dseq; with `seenAt`, the locker was seen then too. */
export async function setAckedDseq(db: Tx, lockerId: number, dseq: number, seenAt?: number): Promise<void> {
  await db
    .updateTable('lockers')
    .set({ acked_dseq: dseq, ...(seenAt !== undefined ? { last_seen_at: seenAt } : {}) })
    .where('id', '=', lockerId)
    .execute();
}

const setAckedSeen = prepared((db, p: { lockerId: number; dseq: number; seenAt: number }) =>
  db.updateTable('lockers').set({ acked_dseq: p.dseq, last_seen_at: p.seenAt }).where('id', '=', p.lockerId),
);

/** setAckedDseq at the end of a batch, deferred (db/prepared.ts): travels with the COMMIT. */
export async function setAckedDseqDeferred(db: Tx, lockerId: number, dseq: number, seenAt: number): Promise<void> {
  await setAckedSeen.defer(db, { lockerId, dseq, seenAt });
}

const INBOX_COLUMNS = ['locker_id', 'dseq', 'type', 'body', 'occurred_at', 'received_at'] as const;
const insertInboxRows = preparedRows('inbox_events', INBOX_COLUMNS);

/**
 * Keeps events in the inbox, in one deferred statement (db/prepared.ts): for a caller that holds
 * the locker and knows their dseqs lie beyond acked_dseq; a row already there fails the insert,
 * and the transaction.
 */
export async function insertInboxEvents(db: Tx, lockerId: number, events: readonly LockerEvent[], receivedAt: number): Promise<void> {
  if (events.length === 0) return;
  await insertInboxRows(
    db,
    events.map((event) => {
      // The trace context is how the fact travelled, not part of it.
      const { dseq, at, traceparent: _traceparent, ...body } = event;
      return { locker_id: lockerId, dseq, type: event.type, body: JSON.stringify(body), occurred_at: at, received_at: receivedAt };
    }),
  );
}

/** Keeps the event in the inbox; false when the inbox already holds its (locker, dseq). */
export async function insertInboxEvent(db: Tx, lockerId: number, event: LockerEvent, receivedAt: number): Promise<boolean> {
  // The trace context is how the fact travelled, not part of it.
  const { dseq, at, traceparent: _traceparent, ...body } = event;
  const inserted = await db
    .insertInto('inbox_events')
    .values({ locker_id: lockerId, dseq, type: event.type, body: JSON.stringify(body), occurred_at: at, received_at: receivedAt })
    .onConflict((oc) => oc.columns(['locker_id', 'dseq']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function linkPresence(db: Tx, lockerId: number): Promise<LinkPresence | undefined> {
  const row = await db.selectFrom('lockers').select(['online', 'presence_conn', 'hello_conn']).where('id', '=', lockerId).executeTakeFirst();
  return row && { online: !!row.online, presenceConn: row.presence_conn, helloConn: row.hello_conn };
}

/** Connection counter of the last hello answered (0: none, or no such locker). */
export async function helloConn(db: Tx, lockerId: number): Promise<number> {
  const row = await db.selectFrom('lockers').select('hello_conn').where('id', '=', lockerId).executeTakeFirst();
  return row?.hello_conn ?? 0;
}

/**
 * Stores a presence message unless it is older. `presence_conn` is the highest connection counter
 * seen and `online` whether that connection is up: a lower counter never overrides a higher one;
 * for the same counter offline (the last will) wins over online (the birth), whatever the order
 * in which they arrive. True when the stored presence changed.
 */
export async function savePresence(db: Tx, lockerId: number, conn: number, online: boolean, at: number): Promise<boolean> {
  const before = await db.selectFrom('lockers').select(['online', 'presence_changed_at']).where('id', '=', lockerId).executeTakeFirst();
  const result = await db
    .updateTable('lockers')
    .set((eb) => ({
      presence_conn: conn,
      online: online ? 1 : 0,
      last_seen_at: at,
      // Online since / offline since: moves only when `online` flips (or was never set).
      presence_changed_at: eb
        .case()
        .when(eb.or([eb('online', '!=', online ? 1 : 0), eb('presence_changed_at', 'is', null)]))
        .then(at)
        .else(eb.ref('presence_changed_at'))
        .end(),
    }))
    .where('id', '=', lockerId)
    .where((eb) =>
      online
        ? eb('presence_conn', '<', conn)
        : eb.or([eb('presence_conn', '<', conn), eb.and([eb('presence_conn', '=', conn), eb('online', '=', 1)])]),
    )
    .executeTakeFirst();
  const changed = Number(result.numUpdatedRows) > 0;
  // The link's history (reports: uptime) gets a row exactly when `online` flips, or is first known.
  if (changed && before && (before.presence_changed_at === null || !!before.online !== online)) {
    await db.insertInto('locker_link_history').values({ locker_id: lockerId, at, online: online ? 1 : 0 }).execute();
  }
  return changed;
}

/**
 * The embedded broker has just started: no locker can be connected to it yet, whatever presence
 * the database kept from before (the old broker's last wills died with it). Every locker stored
 * online goes offline as of `at`; each reconnect then brings it online with a higher connection
 * counter, so "online since" tells the reconnect after a cloud restart from a continuous link.
 */
export async function presenceLostWithBroker(db: Tx, at: number): Promise<number> {
  await db
    .insertInto('locker_link_history')
    .columns(['locker_id', 'at', 'online'])
    .expression((eb) => eb.selectFrom('lockers').select(['id', sql<number>`cast(${at} as bigint)`.as('at'), sql<number>`0`.as('online')]).where('online', '=', 1))
    .execute();
  const result = await db.updateTable('lockers').set({ online: 0, presence_changed_at: at }).where('online', '=', 1).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Any message from the locker proves it is reachable now. */
export async function setLastSeen(db: Tx, lockerId: number, at: number): Promise<void> {
  await db.updateTable('lockers').set({ last_seen_at: at }).where('id', '=', lockerId).execute();
}

/**
 * Records the hello of connection `conn` and the command types it announced, unless a newer
 * connection is known: commands are pushed only once the current connection's position is known.
 */
export async function saveHello(db: Tx, lockerId: number, conn: number, commandTypes?: readonly string[]): Promise<void> {
  await db
    .updateTable('lockers')
    .set({ hello_conn: conn, command_types: commandTypes ? JSON.stringify(commandTypes) : null })
    .where('id', '=', lockerId)
    .where('presence_conn', '<=', conn)
    .execute();
}

/** PostgreSQL: takes the locker's row lock unless another transaction holds it; false then (or when no such locker). */
export async function lockLockerUnlessHeld(db: Tx, lockerId: number): Promise<boolean> {
  const row = await db.selectFrom('lockers').select('id').where('id', '=', lockerId).forUpdate().skipLocked().executeTakeFirst();
  return row !== undefined;
}
