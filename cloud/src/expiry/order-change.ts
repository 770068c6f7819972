/**
 * Writes one order's change in the caller's locker transaction: its changed parcels, the order
 * row, the order.upsert that carries the new intent to the locker (always the change's first
 * command) with the notifications the change owes, and the revocation cseq when the order
 * enters Return initiated (6). The storage clock and the locker's facts both end here, so a
 * state change and its consequences are written alike whoever caused them.
 */
import { OrderState } from '../../../shared/src/enums.js';
import type { OrderRow, ParcelRow } from '../db/schema.js';
import type { Tx } from '../db/transaction.js';
import { upsertCommand, type ReservationRule } from '../orders/intent.js';
import { recordChange, type LockerCommandDraft, type NotificationDraft } from '../outbox/record-change.js';

export interface OrderChange {
  /** The order as it was read in this transaction. */
  before: OrderRow;
  /** The order as it is to be written. */
  order: OrderRow;
  /** Every parcel of the order, with its new values. */
  parcels: readonly ParcelRow[];
  /** Parcels whose row changed (a subset of `parcels`). */
  changed: Iterable<ParcelRow>;
  notifications?: readonly NotificationDraft[];
  /** Further commands besides the order's own upsert (another order, a cell, another locker). */
  commands?: readonly LockerCommandDraft[];
  at: number;
  /** When the order may hold reservations: the upsert then carries `loadableUntil`. */
  reservation?: ReservationRule;
}

/** Returns the cseq of the order's upsert. */
export async function saveOrderChange(tx: Tx, change: OrderChange): Promise<number> {
  const { order, before, at } = change;
  for (const p of change.changed) {
    await tx
      .updateTable('parcels')
      .set({ state: p.state, cell_id: p.cell_id, loaded_at: p.loaded_at, updated_at: at })
      .where('order_id', '=', p.order_id)
      .where('barcode', '=', p.barcode)
      .execute();
  }
  await tx
    .updateTable('orders')
    .set({
      state: order.state,
      locker_id: order.locker_id,
      pickup_code_hash: order.pickup_code_hash,
      loaded_at: order.loaded_at,
      hold_until: order.hold_until,
      state_changed_at: order.state_changed_at,
      updated_at: at,
    })
    .where('id', '=', order.id)
    .execute();
  const [cseq] = await recordChange(tx, {
    at,
    commands: [upsertCommand({ ...order, updated_at: at }, change.parcels, change.reservation), ...(change.commands ?? [])],
    notifications: change.notifications ?? [],
  });
  if (order.state === OrderState.ReturnInitiated && before.state !== OrderState.ReturnInitiated) {
    await rememberRevocation(tx, order, cseq!, at);
  } else if (order.state !== OrderState.ReturnInitiated && before.state === OrderState.ReturnInitiated) {
    await tx.deleteFrom('order_revocations').where('order_id', '=', order.id).execute();
  }
  return cseq!;
}

export async function rememberRevocation(tx: Tx, order: Pick<OrderRow, 'id' | 'locker_id'>, cseq: number, at: number): Promise<void> {
  await tx
    .insertInto('order_revocations')
    .values({ order_id: order.id, locker_id: order.locker_id, revoke_cseq: cseq, created_at: at })
    .onConflict((oc) => oc.column('order_id').doUpdateSet({ locker_id: order.locker_id, revoke_cseq: cseq, created_at: at }))
    .execute();
}
