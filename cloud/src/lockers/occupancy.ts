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
import type { CellRow, LockerRow } from '../db/schema.js';
import type { Tx } from '../db/transaction.js';
import { cellServesMarketplace, isFlagged } from './cells.js';
import { localDate } from './locker-time.js';

/** Parcel states that occupy a cell. */
export const CELL_HOLDING_PARCEL_STATES = [ParcelState.Pending, ParcelState.Loaded, ParcelState.AwaitingReturn] as const;

export interface CellHolder {
  cellId: number;
  orderId: string;
  externalId: string;
  marketplaceId: string;
  orderState: number;
  parcelState: string;
  barcode: string;
  holdUntil: number | null;
}

export interface LockerView {
  locker: LockerRow;
  cells: CellRow[];
  holders: CellHolder[];
}

export async function loadLockerView(tx: Tx, locker: LockerRow): Promise<LockerView> {
  const cells = await tx.selectFrom('cells').selectAll().where('locker_id', '=', locker.id).orderBy('id').execute();
  const rows = await tx
    .selectFrom('parcels')
    .innerJoin('orders', 'orders.id', 'parcels.order_id')
    .select([
      'parcels.cell_id',
      'parcels.barcode',
      'parcels.state as parcel_state',
      'parcels.position',
      'orders.id as order_id',
      'orders.external_id',
      'orders.marketplace_id',
      'orders.state as order_state',
      'orders.hold_until',
    ])
    .where('orders.locker_id', '=', locker.id)
    .where('parcels.cell_id', 'is not', null)
    .where('parcels.state', 'in', [...CELL_HOLDING_PARCEL_STATES])
    .where('orders.state', 'not in', [OrderState.ClientReceived, OrderState.CourierPickedUp, OrderState.Cancelled])
    .orderBy('orders.created_at')
    .orderBy('parcels.position')
    .execute();
  const holders = rows.map((r) => ({
    cellId: r.cell_id!,
    orderId: r.order_id,
    externalId: r.external_id,
    marketplaceId: r.marketplace_id,
    orderState: r.order_state,
    parcelState: r.parcel_state,
    barcode: r.barcode,
    holdUntil: r.hold_until,
  }));
  return { locker, cells, holders };
}

/** Every cell of the locker the marketplace may use, whatever its state. */
export function marketplaceCells(view: LockerView, marketplaceId: string): CellRow[] {
  return view.cells.filter((c) => cellServesMarketplace(c, marketplaceId));
}

function emptiedOnVisit(holder: CellHolder, marketplaceId: string): boolean {
  return holder.marketplaceId === marketplaceId && holder.orderState === OrderState.AwaitingReturn;
}

function usable(view: LockerView): boolean {
  return !!view.locker.active && !view.locker.broken;
}

/**
 * Cells the marketplace may reserve now. `ownOrderId`: an order whose own reservations count as
 * free (an update re-allocating its parcels).
 */
export function freeCells(view: LockerView, marketplaceId: string, ownOrderId?: string): CellRow[] {
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
export function freeCellsOn(view: LockerView, marketplaceId: string, date: string): CellRow[] {
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
