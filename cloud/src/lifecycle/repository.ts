/**
 * The only writer of `orders`, `parcels`, `order_revocations` and `order_transitions`. Everything that changes an order
 * goes through `applyTransition` (apply.ts), which writes here; a test keeps it that way
 * (test/lifecycle/single-writer.test.ts). Writes only the columns that differ from the rows as
 * they were read in the same transaction.
 */
import type { OrderTransitionsTable, OrderRow, ParcelRow } from '../db/schema.js';
import { deferWrite, prepared, preparedRows } from '../db/prepared.js';
import type { Tx } from '../db/transaction.js';
import { TERMINAL_ORDER_STATES } from '../../../shared/src/enums.js';

function changedColumns<T extends object>(before: T, after: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(after) as (keyof T)[]) if (after[key] !== before[key]) out[key] = after[key];
  return out;
}

/** Whether an order at the locker holds this pick-up code hash (codes are unique per locker). */
export async function pickupCodeTaken(tx: Tx, lockerId: number, hash: string): Promise<boolean> {
  const row = await tx.selectFrom('orders').select('id').where('locker_id', '=', lockerId).where('pickup_code_hash', '=', hash).executeTakeFirst();
  return row !== undefined;
}

const ORDER_COLUMNS = [
  'id', 'marketplace_id', 'external_id', 'number', 'locker_id', 'date_delivery', 'state', 'with_reservation', 'request_hash', 'create_response',
  'client_invoice', 'notification', 'pickup_code_hash', 'loaded_at', 'hold_until', 'state_changed_at', 'created_at', 'updated_at',
] as const satisfies readonly (keyof OrderRow)[];

const PARCEL_COLUMNS = [
  'order_id', 'barcode', 'position', 'additional_barcodes', 'length', 'width', 'height', 'state', 'cell_id', 'loaded_at', 'updated_at', 'accessible',
] as const satisfies readonly (keyof ParcelRow)[];

/** Compiles only while every column is listed: a column added to the table must be written here too. */
type EveryColumn<T, K extends readonly (keyof T)[]> = [Exclude<keyof T, K[number]>] extends [never] ? true : never;
const everyOrderColumn: EveryColumn<OrderRow, typeof ORDER_COLUMNS> = true;
const everyParcelColumn: EveryColumn<ParcelRow, typeof PARCEL_COLUMNS> = true;
void everyOrderColumn;
void everyParcelColumn;

const insertOrderRow = prepared((db, p: OrderRow) => db.insertInto('orders').values(Object.fromEntries(ORDER_COLUMNS.map((c) => [c, p[c]])) as OrderRow));

const insertParcelRows = preparedRows('parcels', PARCEL_COLUMNS);

/** A new order and its parcels, in two statements whatever their number (deferred: nothing is read back). */
export async function insertOrder(tx: Tx, order: OrderRow, parcels: readonly ParcelRow[]): Promise<void> {
  await insertOrderRow.defer(tx, order);
  await insertParcelRows(tx, parcels);
}

/** Writes the order's and its parcels' changed columns; parcels not in `parcelsBefore` are inserted. */
export async function saveOrder(tx: Tx, before: OrderRow, after: OrderRow, parcelsBefore: readonly ParcelRow[], parcels: readonly ParcelRow[]): Promise<void> {
  const known = new Map(parcelsBefore.map((p) => [p.barcode, p]));
  for (const p of parcels) {
    const was = known.get(p.barcode);
    if (!was) {
      await deferWrite(tx, tx.insertInto('parcels').values(p));
      continue;
    }
    const { order_id: _o, barcode: _b, ...set } = changedColumns(was, p);
    if (Object.keys(set).length === 0) continue;
    await deferWrite(tx, tx.updateTable('parcels').set(set).where('order_id', '=', p.order_id).where('barcode', '=', p.barcode));
  }
  const { id: _id, ...set } = changedColumns(before, after);
  if (Object.keys(set).length > 0) await deferWrite(tx, tx.updateTable('orders').set(set).where('id', '=', after.id));
}

/** The cseq of the upsert that revoked the order's code: the locker must apply it before 6 -> 7. */
export async function rememberRevocation(tx: Tx, order: Pick<OrderRow, 'id' | 'locker_id'>, cseq: number, at: number): Promise<void> {
  await tx
    .insertInto('order_revocations')
    .values({ order_id: order.id, locker_id: order.locker_id, revoke_cseq: cseq, created_at: at })
    .onConflict((oc) => oc.column('order_id').doUpdateSet({ locker_id: order.locker_id, revoke_cseq: cseq, created_at: at }))
    .execute();
}

export async function forgetRevocation(tx: Tx, orderId: string): Promise<void> {
  await tx.deleteFrom('order_revocations').where('order_id', '=', orderId).execute();
}

/**
 * The cseq the locker must have applied before an order in 6 may move on. Every way into 6
 * records it; an order that entered 6 before that was so (place/cancel did not) gets it once, as
 * the locker's last command recorded no later than the order's state change, which includes the
 * revoking upsert (conservative: it may wait for a few more commands).
 */
export async function revocationCseq(tx: Tx, order: OrderRow): Promise<number> {
  const stored = await tx.selectFrom('order_revocations').select('revoke_cseq').where('order_id', '=', order.id).executeTakeFirst();
  if (stored) return stored.revoke_cseq;
  const logged = await tx
    .selectFrom('locker_commands')
    .select((eb) => eb.fn.max('cseq').as('cseq'))
    .where('locker_id', '=', order.locker_id)
    .where('created_at', '<=', order.state_changed_at)
    .executeTakeFirst();
  let cseq = logged?.cseq === null || logged?.cseq === undefined ? null : Number(logged.cseq);
  if (cseq === null) {
    const locker = await tx.selectFrom('lockers').select('next_cseq').where('id', '=', order.locker_id).executeTakeFirstOrThrow();
    cseq = locker.next_cseq - 1;
  }
  await rememberRevocation(tx, order, cseq, order.state_changed_at);
  return cseq;
}

/**
 * Appends one applied transition to the order's record (after the order row is written and locked).
 * `created`: the transition inserted the order, so it is the first of its record (no lookup).
 */
export async function recordTransition(tx: Tx, row: Omit<OrderTransitionsTable, 'seq'>, created: boolean): Promise<void> {
  let seq = 1;
  if (!created) {
    const last = await tx.selectFrom('order_transitions').select((eb) => eb.fn.max('seq').as('seq')).where('order_id', '=', row.order_id).executeTakeFirst();
    seq = last?.seq === null || last?.seq === undefined ? 1 : Number(last.seq) + 1;
  }
  await insertTransition.defer(tx, { ...row, seq });
}

const insertTransition = prepared((db, p: OrderTransitionsTable) =>
  db.insertInto('order_transitions').values({
    order_id: p.order_id,
    seq: p.seq,
    at: p.at,
    rule: p.rule,
    event: p.event,
    from_state: p.from_state,
    to_state: p.to_state,
    parcels: p.parcels,
  }),
);

/**
 * Orders finished (a terminal state) before `before` with every notification delivered: the
 * order with its parcels, transitions, revocations and delivered notifications. Answers the
 * number of orders. Retention's only write of orders (retention/sweep.ts), kept with the other writes.
 */
export async function deleteFinishedOrdersBefore(db: Tx, before: number, limit: number): Promise<number> {
  const rows = await db
    .selectFrom('orders as o')
    .select('o.id')
    .where('o.state', 'in', [...TERMINAL_ORDER_STATES])
    .where('o.state_changed_at', '<', before)
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('notifications as n').select('n.id').whereRef('n.order_id', '=', 'o.id').where('n.delivered_at', 'is', null))),
    )
    .orderBy('o.state_changed_at')
    .limit(limit)
    .execute();
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return 0;
  await db.deleteFrom('order_transitions').where('order_id', 'in', ids).execute();
  await db.deleteFrom('order_revocations').where('order_id', 'in', ids).execute();
  await db.deleteFrom('notifications').where('order_id', 'in', ids).where('delivered_at', 'is not', null).execute();
  await db.deleteFrom('parcels').where('order_id', 'in', ids).execute();
  return Number((await db.deleteFrom('orders').where('id', 'in', ids).executeTakeFirstOrThrow()).numDeletedRows);
}
