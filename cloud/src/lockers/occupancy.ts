/**
 * Which cells of a locker a marketplace may use, and which of them are free. One view, read inside
 * the caller's transaction, feeds reservation, the order/create fit check, capacity, dayOffs and
 * the locker detail, so they all count alike (docs/decisions.md, "Cloud API"):
 * - a cell serves a marketplace when it has no segment or its segment names the marketplace;
 * - a flagged cell (faulty, dirty, needs inventory, blocked) is never free;
 * - a cell is held by parcels of non-terminal orders that are reserved for it (pending), loaded in
 *   it, or await return in it; except the marketplace's own Awaiting-return (7) orders, whose
 *   cells count as free because the marketplace's courier empties them on the same visit (they
 *   are listed in `toReturn`);
 * - an inactive or broken locker has no free cells.
 */
import { OrderState, ParcelState } from '../../../shared/src/enums.js';
import type { Tx } from '../db/transaction.js';
import { type CellHolder, cellHolders } from '../repositories/occupancy.js';
import { type Cell, type Locker, cellsOf } from '../repositories/lockers.js';
import { cellServesMarketplace, isFlagged } from './cells.js';
import { localDate } from './locker-time.js';

/** What the view needs of its locker. */
export interface ViewedLocker {
  id: number;
  timezone: string;
  depth: number;
  /** Active and not broken: only then has it free cells. */
  usable: boolean;
}

export interface LockerView {
  locker: ViewedLocker;
  cells: Cell[];
  holders: CellHolder[];
}

export async function loadLockerView(tx: Tx, locker: Locker): Promise<LockerView> {
  const viewed: ViewedLocker = { id: locker.id, timezone: locker.timezone, depth: locker.depth, usable: locker.active && !locker.broken };
  return { locker: viewed, cells: await cellsOf(tx, locker.id), holders: await cellHolders(tx, locker.id) };
}

/** Every cell of the locker the marketplace may use, whatever its state. */
export function marketplaceCells(view: LockerView, marketplaceId: string): Cell[] {
  return view.cells.filter((c) => cellServesMarketplace(c, marketplaceId));
}

/** A parcel the marketplace's courier takes out on the visit that loads its new ones: its cell counts as free. */
export function emptiedOnVisit(holder: CellHolder, marketplaceId: string): boolean {
  return holder.marketplaceId === marketplaceId && holder.orderState === OrderState.AwaitingReturn;
}

function usable(view: LockerView): boolean {
  return view.locker.usable;
}

/**
 * Cells the marketplace may reserve now. `ownOrderId`: an order whose own reservations count as
 * free (an update re-allocating its parcels).
 */
export function freeCells(view: LockerView, marketplaceId: string, ownOrderId?: string): Cell[] {
  if (!usable(view)) return [];
  const held = new Set(
    view.holders.filter((h) => !emptiedOnVisit(h, marketplaceId) && h.orderId !== ownOrderId).map((h) => h.cellId),
  );
  return marketplaceCells(view, marketplaceId).filter((c) => !isFlagged(c) && !held.has(c.id));
}

/**
 * Cells expected free on a future local date: a reservation or a parcel awaiting return holds its
 * cell on every date; a loaded parcel until the local date of its order's holdUntil (inclusive).
 */
export function freeCellsOn(view: LockerView, marketplaceId: string, date: string): Cell[] {
  if (!usable(view)) return [];
  const tz = view.locker.timezone;
  const holds = (h: CellHolder): boolean => {
    if (emptiedOnVisit(h, marketplaceId)) return false;
    if (h.parcelState === ParcelState.Loaded && h.orderState === OrderState.CourierLoaded && h.holdUntil !== null) {
      return localDate(h.holdUntil, tz) >= date;
    }
    return true;
  };
  const held = new Set(view.holders.filter(holds).map((h) => h.cellId));
  return marketplaceCells(view, marketplaceId).filter((c) => !isFlagged(c) && !held.has(c.id));
}

export interface CellOrder {
  cellId: number;
  externalId: string;
  barcodes: string[];
}

/** The marketplace's Awaiting-return orders in the locker, per cell (`toReturn`). */
export function toReturn(view: LockerView, marketplaceId: string): CellOrder[] {
  const byCell = new Map<string, CellOrder>();
  for (const h of view.holders.filter((x) => emptiedOnVisit(x, marketplaceId))) {
    const key = `${h.cellId}:${h.orderId}`;
    const entry = byCell.get(key) ?? { cellId: h.cellId, externalId: h.externalId, barcodes: [] };
    entry.barcodes.push(h.barcode);
    byCell.set(key, entry);
  }
  return [...byCell.values()].sort((a, b) => a.cellId - b.cellId);
}
