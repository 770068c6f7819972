/**
 * A load into a cell reserved for another order (docs/decisions.md): the locker may put a parcel into a cell the cloud had
 * meanwhile reserved for another order. The fact wins; the other order's reservation in that cell
 * is allocated again among the free cells, or released when nothing fits (the order stays New and
 * its courier's load takes any fitting free cell). A cell that already held another order's
 * parcel is a conflict between two facts that only an inventory can settle: it is reported.
 */
import { ParcelState } from '../../../shared/src/enums.js';
import { applyTransition } from '../lifecycle/apply.js';
import { parcelStep } from '../lifecycle/decide.js';
import { stepParcel } from '../lifecycle/parcel-step.js';
import { loadLockerView } from '../lockers/occupancy.js';
import { allocateParcels } from '../orders/reserve.js';
import { findOrderById, loadParcels, parcelsInCell } from '../repositories/orders.js';
import { recordAlert } from './alerts.js';
import { reservationRule, type EventContext } from './context.js';

export async function relocateDisplacedReservations(ctx: EventContext, loadedOrderId: string, cellId: number): Promise<void> {
  const { tx, locker, now } = ctx;
  const others = await parcelsInCell(tx, locker.id, cellId, loadedOrderId);

  for (const o of others.filter((r) => r.state !== ParcelState.Pending)) {
    await recordAlert(ctx, {
      kind: 'fact.cell_conflict',
      severity: 'warning',
      cellId,
      orderId: o.orderId,
      detail: { barcode: o.barcode, loadedOrderId, note: 'the cloud had another parcel in this cell' },
    });
  }

  const reservedFor = [...new Set(others.filter((r) => r.state === ParcelState.Pending).map((r) => r.orderId))];
  for (const orderId of reservedFor) {
    const order = await findOrderById(tx, orderId);
    if (!order) throw new Error(`no order ${orderId}`);
    const parcels = await loadParcels(tx, orderId);
    const displaced = parcels.filter((p) => p.state === ParcelState.Pending && p.cell_id === cellId);
    // The view already holds the loaded parcel in `cellId`, and the order's other reservations stay put.
    const view = await loadLockerView(tx, locker);
    const allocation = allocateParcels(view, order.marketplace_id, displaced, ctx.deps.config.allocation);
    const cellOf = new Map(allocation.cells.flatMap((c) => c.barcodes.map((b) => [b, c.cellId] as const)));
    const step = parcelStep('reservation.displaced', ParcelState.Pending);
    const changed = displaced.map((p) => ({ ...stepParcel(p, step, now), cell_id: cellOf.get(p.barcode) ?? null }));
    const after = parcels.map((p) => changed.find((c) => c.barcode === p.barcode) ?? p);
    await applyTransition(tx, undefined, {
      event: 'reservation.displaced',
      before: order,
      order,
      parcelsBefore: parcels,
      parcels: after,
      locker,
      at: now,
      reservation: reservationRule(ctx),
    });
    await recordAlert(ctx, {
      kind: 'reservation.displaced',
      severity: 'info',
      cellId,
      orderId,
      detail: { loadedOrderId, moved: changed.filter((p) => p.cell_id !== null).map((p) => ({ barcode: p.barcode, cellId: p.cell_id })), released: changed.filter((p) => p.cell_id === null).map((p) => p.barcode) },
    });
  }
}
