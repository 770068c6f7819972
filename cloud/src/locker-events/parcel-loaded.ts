/**
 * `parcel.loaded`: a courier put the parcel into the reported cell. The fact always wins; what it
 * does depends on what the cloud expected (docs/decisions.md, "Storage clock and notifications"):
 * - a pending parcel of a New order -> loaded; order-status 3; the last remaining position in
 *   makes the order Courier loaded (pick-up code, deadline);
 * - a parcel the order no longer expects (position cancelled meanwhile, order cancelled, storage
 *   expired, parcel already handed out, or a barcode the order does not have) -> in the locker
 *   awaiting return; order-status 3 still tells where it is; an order with nothing else for the
 *   customer goes to Return initiated (6), and one already in 7 sends order-status 7 for it too;
 * - the same parcel reported again in the same cell changes nothing; in another cell it moves;
 * - an order unknown to the cloud: the cell is flagged for inventory and operators are alerted;
 * - an order now meant for another locker: moved back here when nothing of it is in a locker yet,
 *   otherwise the cell is flagged for inventory, operators alerted and the marketplace told.
 * Whatever reservation another order had on the cell is allocated again (displaced.ts).
 */
import { OrderState, ParcelState } from '../../../shared/src/enums.js';
import type { OrderRow, ParcelRow } from '../db/schema.js';
import { parcelStep } from '../lifecycle/decide.js';
import { orderStatusNotification } from '../lifecycle/notifications.js';
import { stepParcel } from '../lifecycle/parcel-step.js';
import type { ParcelCondition } from '../lifecycle/table.js';
import { recordChange } from '../outbox/record-change.js';
import { findCell } from '../repositories/lockers.js';
import { findOrderById, loadParcels } from '../repositories/orders.js';
import { recordAlert } from './alerts.js';
import { raiseNeedsInventory } from './cell-facts.js';
import type { EventContext, EventOf } from './context.js';
import { relocateDisplacedReservations } from './displaced.js';
import { orderWork, saveOrderWork, setParcel, type OrderWork } from './order-work.js';

type LoadedEvent = EventOf<'parcel.loaded'>;

async function parcelOfUnknownPlace(ctx: EventContext<LoadedEvent>, kind: string, order: OrderRow | undefined): Promise<void> {
  const { event, locker } = ctx;
  await recordAlert(ctx, { kind, severity: 'warning', cellId: event.cellId, orderId: order?.id ?? event.orderId, detail: { barcode: event.barcode } });
  await raiseNeedsInventory(ctx, event.cellId);
  if (order) {
    const place = { lockerId: locker.id, cellId: event.cellId };
    await recordChange(ctx.tx, {
      at: ctx.now,
      notifications: [orderStatusNotification(order, event.barcode, OrderState.CourierLoaded, event.at, locker.timezone, place)],
    });
  }
}

/** A New order of which nothing is in a locker yet comes back to the locker that has its parcel. */
function moveHere(ctx: EventContext<LoadedEvent>, work: OrderWork): boolean {
  const { order, parcels } = work;
  const inLocker = parcels.some((p) => p.state === ParcelState.Loaded || p.state === ParcelState.AwaitingReturn);
  if (order.state !== OrderState.New || inLocker) return false;
  const from = order.locker_id;
  work.order = { ...order, locker_id: ctx.locker.id };
  for (const p of parcels) if (p.state === ParcelState.Pending && p.cell_id !== null) setParcel(work, { ...p, cell_id: null, updated_at: ctx.now });
  work.commands.push({ lockerId: from, body: { type: 'order.remove', orderId: order.id } });
  return true;
}

/** A barcode the order does not have, before its step (which puts it in the locker to be returned). */
function strayParcel(ctx: EventContext<LoadedEvent>, work: OrderWork): ParcelRow {
  return {
    order_id: work.order.id,
    barcode: ctx.event.barcode,
    position: Math.max(-1, ...work.parcels.map((p) => p.position)) + 1,
    additional_barcodes: '[]',
    length: null,
    width: null,
    height: null,
    state: ParcelState.Pending,
    cell_id: null,
    loaded_at: null,
    accessible: 0,
    updated_at: ctx.now,
  };
}

export async function applyParcelLoaded(ctx: EventContext<LoadedEvent>): Promise<void> {
  const { tx, event, locker, now } = ctx;
  const cell = await findCell(tx, locker.id, event.cellId);
  if (!cell) await recordAlert(ctx, { kind: 'fact.unknown_cell', severity: 'warning', cellId: event.cellId, orderId: event.orderId, detail: { type: event.type, barcode: event.barcode } });

  const order = await findOrderById(tx, event.orderId);
  if (!order) return parcelOfUnknownPlace(ctx, 'fact.unknown_order', undefined);
  const work = orderWork(order, await loadParcels(tx, order.id));
  if (order.locker_id !== locker.id) {
    if (!moveHere(ctx, work)) return parcelOfUnknownPlace(ctx, 'fact.other_locker', order);
    await recordAlert(ctx, { kind: 'fact.order_moved_back', severity: 'info', cellId: event.cellId, orderId: order.id, detail: { barcode: event.barcode, from: order.locker_id } });
  }

  const known = work.parcels.find((p) => p.barcode === event.barcode);
  const conditions: ParcelCondition[] = [
    work.order.state === OrderState.New ? 'orderNew' : 'orderNotNew',
    known?.cell_id === event.cellId ? 'sameCell' : 'otherCell',
  ];
  const step = parcelStep('parcel.loaded', known ? (known.state as ParcelState) : 'absent', conditions);
  if (step.to === 'same' && step.cell === 'keep') {
    ctx.log.debug({ lockerId: locker.id, dseq: event.dseq, orderId: order.id, cellId: event.cellId }, 'parcel already loaded in this cell');
    return;
  }
  if (step.alert) {
    const detail = known ? { barcode: event.barcode, parcelState: known.state, orderState: order.state } : { barcode: event.barcode };
    await recordAlert(ctx, { ...step.alert, cellId: event.cellId, orderId: order.id, detail });
  }
  const parcel = setParcel(work, stepParcel(known ?? strayParcel(ctx, work), step, now, { cellId: event.cellId, at: event.at }));
  const place = { lockerId: locker.id, cellId: event.cellId };
  work.notifications.push(orderStatusNotification(work.order, parcel.barcode, OrderState.CourierLoaded, event.at, locker.timezone, place));
  // A parcel the order no longer expected, while the order already awaits its return: say so at once.
  if (step.to === ParcelState.AwaitingReturn && work.order.state === OrderState.AwaitingReturn) {
    work.notifications.push(orderStatusNotification(work.order, parcel.barcode, OrderState.AwaitingReturn, now, locker.timezone));
  }
  await saveOrderWork(ctx, work, 'parcel.loaded');
  await relocateDisplacedReservations(ctx, order.id, event.cellId);
}
