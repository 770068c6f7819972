/**
 * Which parcels hold a locker's cells: the read side of occupancy (lockers/occupancy.ts decides
 * what is free) and of the fleet reload's check before it deletes cells.
 */
import { OrderState, ParcelState } from '../../../shared/src/enums.js';
import { prepared } from '../db/prepared.js';
import type { OrderRow } from '../db/schema.js';
import type { Tx } from '../db/transaction.js';
import { knowCursor } from './locker-stream.js';

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

/** Parcels of the locker's non-terminal orders that hold a cell, oldest order first, then by position. */
export async function cellHolders(db: Tx, lockerId: number): Promise<CellHolder[]> {
  const rows = await db
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
    .where('orders.locker_id', '=', lockerId)
    .where('parcels.cell_id', 'is not', null)
    .where('parcels.state', 'in', [...CELL_HOLDING_PARCEL_STATES])
    .where('orders.state', 'not in', [OrderState.ClientReceived, OrderState.CourierPickedUp, OrderState.Cancelled])
    .orderBy('orders.created_at')
    .orderBy('parcels.position')
    .execute();
  return rows.map((r) => ({
    cellId: r.cell_id!,
    orderId: r.order_id,
    externalId: r.external_id,
    marketplaceId: r.marketplace_id,
    orderState: r.order_state,
    parcelState: r.parcel_state,
    barcode: r.barcode,
    holdUntil: r.hold_until,
  }));
}

/** Of `cellIds`, the cells a parcel holds or is reserved for, whatever its order's state. */
export async function heldCells(db: Tx, lockerId: number, cellIds: readonly number[]): Promise<number[]> {
  if (cellIds.length === 0) return [];
  const rows = await db
    .selectFrom('parcels')
    .innerJoin('orders', 'orders.id', 'parcels.order_id')
    .select('parcels.cell_id')
    .where('orders.locker_id', '=', lockerId)
    .where('parcels.cell_id', 'in', [...cellIds])
    .where('parcels.state', 'in', [...CELL_HOLDING_PARCEL_STATES])
    .execute();
  return [...new Set(rows.map((r) => r.cell_id!))].sort((a, b) => a - b);
}

/** The marketplace's newest order with a parcel of this barcode: where the barcode is. */
export async function newestOrderWithBarcode(db: Tx, marketplaceId: string, barcode: string): Promise<{ orderId: string; lockerId: number } | undefined> {
  const row = await db
    .selectFrom('orders')
    .innerJoin('parcels', 'parcels.order_id', 'orders.id')
    .select(['orders.id', 'orders.locker_id'])
    .where('orders.marketplace_id', '=', marketplaceId)
    .where('parcels.barcode', '=', barcode)
    .orderBy('orders.created_at', 'desc')
    .executeTakeFirst();
  return row && { orderId: row.id, lockerId: row.locker_id };
}

/** What a reservation reads first: the locker's occupancy version and an order already made under the externalId. */
export interface ReservationHead {
  /** Undefined: no such locker. */
  occupancyVersion: number | undefined;
  order: OrderRow | undefined;
}

const reservationHeadQuery = prepared((db, p: { lockerId: number; marketplaceId: string; externalId: string }, dialect) => {
  const query = db
    .selectFrom('lockers as l')
    .leftJoin('orders as o', (join) => join.on('o.marketplace_id', '=', p.marketplaceId).on('o.external_id', '=', p.externalId))
    .selectAll('o')
    .select(['l.occupancy_version as occupancy_version', 'l.next_cseq as next_cseq'])
    .where('l.id', '=', p.lockerId);
  // SQLite's BEGIN IMMEDIATE already holds the database's write lock.
  return dialect === 'postgres' ? query.forUpdate('l') : query;
});

/**
 * The first statement of a reservation's transaction: it locks the locker's row (PostgreSQL) and
 * reads its occupancy version, its command cursor and the replay check together, one round trip
 * for four questions.
 */
export async function reservationHead(tx: Tx, lockerId: number, marketplaceId: string, externalId: string): Promise<ReservationHead> {
  const row = await reservationHeadQuery.first(tx, { lockerId, marketplaceId, externalId });
  if (!row) return { occupancyVersion: undefined, order: undefined };
  const { occupancy_version: occupancyVersion, next_cseq: nextCseq, ...order } = row;
  // Read holding the locker's row: the reservation's command needs no read of the cursor.
  knowCursor(tx, lockerId, nextCseq, occupancyVersion);
  return { occupancyVersion, order: order.id === null ? undefined : (order as OrderRow) };
}
