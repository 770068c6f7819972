/**
 * A technician's inventory of flagged cells at the screen (docs/agent.md, "Service menu"). After
 * a power cut in the middle of a load or a door the board never confirmed, the locker cannot tell
 * what a cell holds and sets it aside (`needs_inventory`). A technician signed in with a service
 * code opens it and says what is inside: `empty`, or the barcode of the parcel found. One
 * `cell.inventoried` event carries it to the cloud, committed with what the locker records:
 * - empty: needs_inventory is cleared;
 * - a parcel of exactly one order the locker holds it for (New or Courier loaded, the parcel not
 *   yet in a cell; several such orders are told apart by the parcel's reserved cell): the parcel
 *   is recorded in the cell as a load, so the customer's code opens it, and the flag is cleared;
 * - any other barcode: nothing is recorded, the cell stays flagged (the cloud alerts operators).
 */
import { CellFlag, OrderState } from '../../../shared/src/enums.js';
import type { LockerStore, ParcelMatch } from '../store/index.js';

export type InventoryFinding = { outcome: 'empty' } | { outcome: 'found'; barcode: string };

export interface FlaggedCell {
  cellId: number;
  flags: CellFlag[];
}

/** Cells a technician may look into: needs_inventory first, then faulty; by number within each. */
export function flaggedCells(store: LockerStore): FlaggedCell[] {
  const rank = (flags: readonly CellFlag[]): number => (flags.includes(CellFlag.NeedsInventory) ? 0 : flags.includes(CellFlag.Faulty) ? 1 : 2);
  return store.cells
    .all()
    .filter((c) => rank(c.flags) < 2)
    .sort((a, b) => rank(a.flags) - rank(b.flags) || a.id - b.id)
    .map((c) => ({ cellId: c.id, flags: c.flags }));
}

/** The parcel a barcode found in `cellId` is, when the locker can tell; null otherwise. */
function parcelFound(store: LockerStore, cellId: number, barcode: string): { match: ParcelMatch; inCell: boolean } | null {
  const matches = store.orders.findByBarcode(barcode);
  const already = matches.find((m) => {
    const fact = store.parcels.get(m.order.intent.orderId, m.parcel.barcode);
    return fact?.state === 'in_cell' && fact.cellId === cellId;
  });
  if (already) return { match: already, inCell: true };
  const open = matches.filter(
    (m) =>
      !m.order.removed &&
      (m.order.intent.state === OrderState.New || m.order.intent.state === OrderState.CourierLoaded) &&
      (m.parcel.state === 'pending' || m.parcel.state === 'loaded') &&
      store.parcels.get(m.order.intent.orderId, m.parcel.barcode) === null,
  );
  const pick = open.length === 1 ? open : open.filter((m) => m.parcel.cellId === cellId);
  return pick.length === 1 ? { match: pick[0]!, inCell: false } : null;
}

/** Who loaded a parcel a technician found: the service code, in the parcel's facts. */
export const inventoryLoader = (codeId: string): string => `service:${codeId}`;

/**
 * Records what the technician found in one transaction with its event; returns the order the
 * parcel belongs to (null: empty, or a parcel the locker cannot place) and whether the flag left.
 */
export function recordInventory(store: LockerStore, at: number, cellId: number, finding: InventoryFinding, codeId: string): { orderId: string | null; cleared: boolean } {
  return store.tx(() => {
    const found = finding.outcome === 'found' ? parcelFound(store, cellId, finding.barcode) : null;
    if (found && !found.inCell) store.parcels.recordLoaded(found.match.order.intent.orderId, found.match.parcel.barcode, cellId, at, inventoryLoader(codeId));
    const settled = finding.outcome === 'empty' || found !== null;
    const cleared = settled && store.cells.clearInspectedFlag(cellId, CellFlag.NeedsInventory);
    const orderId = found?.match.order.intent.orderId ?? null;
    store.outbox.emit({
      type: 'cell.inventoried',
      cellId,
      outcome: finding.outcome,
      barcode: finding.outcome === 'found' ? (found?.match.parcel.barcode ?? finding.barcode) : null,
      orderId,
      codeId,
    });
    return { orderId, cleared };
  });
}
