/**
 * order/place/cancel: cancels one parcel position of an order (New or Courier loaded).
 *
 * Per parcel: pending -> cancelled (its reservation released); loaded -> awaiting return (a
 * courier collects it). Refused: unknown order 205, unknown barcode 207, a position already
 * cancelled or awaiting return 208, a parcel the customer took or a courier collected 211.
 *
 * The order then follows its parcels:
 * - no position left (every parcel cancelled or awaiting return): 5 Cancelled when nothing of it is
 *   in the locker, else 6 Return initiated with the pick-up code revoked. The storage clock
 *   (expiry/) moves 6 -> 7 once the locker confirms or at most 15 minutes later, and sends the
 *   event 7 notification then.
 * - New whose remaining positions are all loaded: becomes Courier loaded (pick-up code, deadline);
 * - otherwise the state stays.
 */
import { OrderState, ParcelState, ResultCode } from '../../../shared/src/enums.js';
import type { MarketplaceRow, OrderRow, ParcelRow } from '../db/schema.js';
import { lockerTransaction } from '../db/transaction.js';
import { DomainError } from '../errors.js';
import type { OrderAck } from '../contract/orders.js';
import { recordChange, type NotificationDraft } from '../outbox/record-change.js';
import type { ServiceDeps } from '../services.js';
import { upsertCommand } from './intent.js';
import { findOrder, loadParcels } from './order-store.js';
import { enterCourierLoaded } from './pickup.js';
import { notFound } from './update-order.js';

export interface CancelPositionRequest {
  extId: string;
  barcode: string;
}

function cancelledParcel(parcel: ParcelRow): Pick<ParcelRow, 'state' | 'cell_id'> {
  switch (parcel.state as ParcelState) {
    case ParcelState.Pending:
      return { state: ParcelState.Cancelled, cell_id: null };
    case ParcelState.Loaded:
      return { state: ParcelState.AwaitingReturn, cell_id: parcel.cell_id };
    case ParcelState.Cancelled:
    case ParcelState.AwaitingReturn:
      throw new DomainError(ResultCode.PackagingCanceled, 'Packaging canceled');
    case ParcelState.Received:
    case ParcelState.Returned:
      throw new DomainError(ResultCode.PackagingLoadedOrIssued, 'Packaging loaded or issued');
  }
}

export async function cancelPosition(deps: ServiceDeps, marketplace: MarketplaceRow, req: CancelPositionRequest): Promise<OrderAck> {
  const { cdb, clock } = deps;
  // The order's locker may change under us (a concurrent update moving it); then read again.
  for (let attempt = 1; ; attempt++) {
    const seen = await findOrder(cdb.db, marketplace.id, req.extId);
    if (!seen) throw notFound();
    const outcome = await lockerTransaction(cdb, [seen.locker_id], async (tx) => {
      const order = await findOrder(tx, marketplace.id, req.extId);
      if (!order) throw notFound();
      if (order.locker_id !== seen.locker_id) return 'moved' as const;
      const parcels = await loadParcels(tx, order.id);
      const parcel = parcels.find((p) => p.barcode === req.barcode);
      if (!parcel) throw new DomainError(ResultCode.PackagingNotFound, 'Packaging not found');
      const now = clock.now();
      Object.assign(parcel, cancelledParcel(parcel), { updated_at: now });
      await tx
        .updateTable('parcels')
        .set({ state: parcel.state, cell_id: parcel.cell_id, updated_at: now })
        .where('order_id', '=', order.id)
        .where('barcode', '=', parcel.barcode)
        .execute();

      let updated: OrderRow = order;
      let notifications: NotificationDraft[] = [];
      const positions = parcels.filter((p) => p.state === ParcelState.Pending || p.state === ParcelState.Loaded);
      const inLocker = parcels.some((p) => p.state === ParcelState.AwaitingReturn);
      if (positions.length === 0) {
        const state = inLocker ? OrderState.ReturnInitiated : OrderState.Cancelled;
        updated = { ...order, state, pickup_code_hash: null, state_changed_at: now, updated_at: now };
      } else if (order.state === OrderState.New && positions.every((p) => p.state === ParcelState.Loaded)) {
        const locker = await tx.selectFrom('lockers').selectAll().where('id', '=', order.locker_id).executeTakeFirstOrThrow();
        const loaded = await enterCourierLoaded(tx, { random: deps.random, pickupCodeLength: deps.config.pickupCodeLength }, order, locker, marketplace, now);
        updated = { ...order, ...loaded.update };
        notifications = loaded.notifications;
      } else {
        updated = { ...order, updated_at: now };
      }
      await tx
        .updateTable('orders')
        .set({
          state: updated.state,
          pickup_code_hash: updated.pickup_code_hash,
          loaded_at: updated.loaded_at,
          hold_until: updated.hold_until,
          state_changed_at: updated.state_changed_at,
          updated_at: now,
        })
        .where('id', '=', order.id)
        .execute();
      const { timezone } = await tx.selectFrom('lockers').select('timezone').where('id', '=', order.locker_id).executeTakeFirstOrThrow();
      const rule = { timezone, graceMinutes: deps.config.reservationGraceMinutes };
      await recordChange(tx, { at: now, commands: [upsertCommand(updated, parcels, rule)], notifications });
      return { answer: { externalId: order.external_id, state: updated.state }, lockerId: order.locker_id, notified: notifications.length > 0 };
    });
    if (outcome === 'moved') {
      if (attempt >= 3) throw new Error(`order ${seen.id} kept moving between lockers`);
      continue;
    }
    deps.signals.commandsRecorded([outcome.lockerId]);
    if (outcome.notified) deps.signals.notificationsRecorded();
    return outcome.answer;
  }
}
