/**
 * `parcel.received` (a customer's code opened the cell) and `parcel.returned` (a courier collected
 * it): the parcel has left the locker. The parcel takes the new state and the marketplace gets
 * order-status 2 or 4 for it, whatever the cloud expected:
 * - a pickup after the code was revoked (6 or 7: the locker had not yet heard of it) is a
 *   pickup: status 2, and the order ends in 2 when nothing of it is left;
 * - a parcel the cloud did not have in the locker (pending, cancelled, or taken before) still
 *   gets its status, and operators an alert;
 * - the same parcel reported again in the same state changes nothing;
 * - an unknown order, a barcode the order does not have, or an order meant for another locker:
 *   the marketplace (when known) gets the status and operators an alert; no state changes.
 * The order then follows its parcels (rows T and R of the lifecycle table, docs/lifecycle.md).
 */
import { OrderState, type ParcelState } from '../../../shared/src/enums.js';
import { parcelStep } from '../lifecycle/decide.js';
import { orderStatusNotification } from '../lifecycle/notifications.js';
import { stepParcel } from '../lifecycle/parcel-step.js';
import { recordChange } from '../outbox/record-change.js';
import { findOrderById, loadParcels } from '../repositories/orders.js';
import { recordAlert } from './alerts.js';
import type { EventContext, EventOf } from './context.js';
import { orderWork, saveOrderWork, setParcel } from './order-work.js';

type TakenEvent = EventOf<'parcel.received'> | EventOf<'parcel.returned'>;

export async function applyParcelTaken(ctx: EventContext<TakenEvent>): Promise<void> {
  const { tx, event, locker, now } = ctx;
  const received = event.type === 'parcel.received';
  const status = received ? OrderState.ClientReceived : OrderState.CourierPickedUp;

  const order = await findOrderById(tx, event.orderId);
  if (!order) {
    await recordAlert(ctx, { kind: 'fact.unknown_order', severity: 'warning', cellId: event.cellId, orderId: event.orderId, detail: { type: event.type, barcode: event.barcode } });
    return;
  }
  const parcels = await loadParcels(tx, order.id);
  const parcel = parcels.find((p) => p.barcode === event.barcode);
  if (!parcel || order.locker_id !== locker.id) {
    await recordAlert(ctx, {
      kind: parcel ? 'fact.other_locker' : 'fact.unknown_parcel',
      severity: 'warning',
      cellId: event.cellId,
      orderId: order.id,
      detail: { type: event.type, barcode: event.barcode },
    });
    await recordChange(tx, { at: now, notifications: [orderStatusNotification(order, event.barcode, status, event.at, locker.timezone)] });
    return;
  }
  const step = parcelStep(event.type, parcel.state as ParcelState);
  if (step.to === 'same') {
    ctx.log.debug({ lockerId: locker.id, dseq: event.dseq, orderId: order.id, state: parcel.state }, 'parcel already in this state');
    return;
  }
  if (step.alert) {
    await recordAlert(ctx, { ...step.alert, cellId: event.cellId, orderId: order.id, detail: { type: event.type, barcode: event.barcode, parcelState: parcel.state } });
  } else if (received && (order.state === OrderState.ReturnInitiated || order.state === OrderState.AwaitingReturn)) {
    await recordAlert(ctx, { kind: 'fact.pickup_after_revocation', severity: 'info', cellId: event.cellId, orderId: order.id, detail: { barcode: event.barcode, orderState: order.state } });
  }
  const work = orderWork(order, parcels);
  setParcel(work, stepParcel(parcel, step, now));
  work.notifications.push(orderStatusNotification(order, parcel.barcode, status, event.at, locker.timezone));
  await saveOrderWork(ctx, work, event.type);
}
