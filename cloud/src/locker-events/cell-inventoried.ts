/**
 * `cell.inventoried`: a technician signed in with a service code looked into a flagged cell at the
 * locker's screen (docs/agent.md, "Service menu"). Applied once, like every fact:
 * - empty: needs_inventory leaves the cell;
 * - found, with the order the locker placed the parcel in: needs_inventory leaves the cell, then
 *   the parcel is loaded in it exactly as by a courier's `parcel.loaded` (its lifecycle rows, the
 *   marketplace's order-status 3 with the locker and cell, the pick-up code and the deadline when
 *   the order is complete); where that fact fits no intent (an unknown order, another locker's) the
 *   cell is flagged again and operators alerted, as for a courier's load;
 * - found, a barcode the locker could not place: kept for operators (alert
 *   `inventory.unplaced_parcel`), and the cell stays flagged.
 * Each inventory is also kept in the locker's history; clearing the last flag the locker raised
 * resolves the cell's `cell.flags` alert.
 */
import { recordAlert } from './alerts.js';
import { clearNeedsInventory, lockerRaised, raiseNeedsInventory } from './cell-facts.js';
import type { EventContext, EventOf } from './context.js';
import { applyParcelLoaded } from './parcel-loaded.js';

type InventoriedEvent = EventOf<'cell.inventoried'>;

export async function applyCellInventoried(ctx: EventContext<InventoriedEvent>): Promise<void> {
  const { event } = ctx;
  const detail = { outcome: event.outcome, barcode: event.barcode, codeId: event.codeId };
  if (event.outcome === 'found' && event.orderId === null) {
    await recordAlert(ctx, { kind: 'inventory.unplaced_parcel', severity: 'warning', cellId: event.cellId, detail });
    await raiseNeedsInventory(ctx, event.cellId);
    return;
  }
  const left = await clearNeedsInventory(ctx, event.cellId, 'inventoried');
  if (left === null) {
    await recordAlert(ctx, { kind: 'fact.unknown_cell', severity: 'warning', cellId: event.cellId, orderId: event.orderId, detail: { type: event.type, ...detail } });
    return;
  }
  await recordAlert(ctx, { kind: event.type, severity: 'info', cellId: event.cellId, orderId: event.orderId, detail });
  if (!lockerRaised(left)) await recordAlert(ctx, { kind: 'cell.flags', severity: 'info', cellId: event.cellId, detail: { reason: 'inventoried', flags: left }, clears: true });
  if (event.outcome === 'found' && event.orderId !== null && event.barcode !== null) {
    const { dseq, at, traceparent, cellId, orderId, barcode, codeId } = event;
    await applyParcelLoaded({ ...ctx, event: { type: 'parcel.loaded', dseq, at, ...(traceparent ? { traceparent } : {}), orderId, barcode, cellId, grantId: `service:${codeId}` } });
  }
}
