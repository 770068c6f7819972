/**
 * States 6 and 7 (DESIGN.md, "States 6 and 7"). Storage expiry, cancelling every position of a
 * loaded order, and a customer leaving only parcels to be returned all move the order to Return
 * initiated (6): what is left in the locker is to be returned and the pick-up code is revoked.
 * It becomes Awaiting return (7) when the locker has applied the revoking order.upsert, or at the
 * latest after the confirmation timeout; entering 7 tells the marketplace per parcel still in
 * the locker.
 */
import { OrderState, ParcelState } from '../../../shared/src/enums.js';
import type { OrderRow, ParcelRow } from '../db/schema.js';
import type { Tx } from '../db/transaction.js';
import type { NotificationDraft } from '../outbox/record-change.js';
import { orderStatusNotification } from '../notify/order-status.js';
import { rememberRevocation } from './order-change.js';

export interface StateStep {
  order: OrderRow;
  /** Parcel rows that changed (the same objects as in the parcels passed in, updated in place). */
  changed: ParcelRow[];
  notifications: NotificationDraft[];
}

/** -> 6: parcels waiting for the customer are to be returned now; the pick-up code is revoked. */
export function initiateReturn(order: OrderRow, parcels: ParcelRow[], at: number): StateStep {
  const changed: ParcelRow[] = [];
  for (const p of parcels) {
    if (p.state !== ParcelState.Loaded) continue;
    p.state = ParcelState.AwaitingReturn;
    p.updated_at = at;
    changed.push(p);
  }
  return {
    order: { ...order, state: OrderState.ReturnInitiated, pickup_code_hash: null, state_changed_at: at, updated_at: at },
    changed,
    notifications: [],
  };
}

/** 6 -> 7: one order-status 7 per parcel still in the locker. */
export function awaitReturn(order: OrderRow, parcels: readonly ParcelRow[], at: number, timezone: string): StateStep {
  return {
    order: { ...order, state: OrderState.AwaitingReturn, pickup_code_hash: null, state_changed_at: at, updated_at: at },
    changed: [],
    notifications: parcels
      .filter((p) => p.state === ParcelState.AwaitingReturn)
      .map((p) => orderStatusNotification(order, p.barcode, OrderState.AwaitingReturn, at, timezone)),
  };
}

/**
 * The cseq the locker must have applied before an order in 6 may move on. Recorded when the
 * order entered 6 through saveOrderChange; for an order that entered 6 elsewhere (place/cancel)
 * it is taken, once, as the locker's last command recorded no later than the order's state
 * change, which includes the revoking upsert (conservative: it may wait for a few more commands).
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
