/**
 * Reads of orders and their parcels, scoped by marketplace where a marketplace asks. Reads only:
 * the order lifecycle's repository (lifecycle/repository.ts) is their single writer. Orders and
 * parcels are handed out as rows because they are the lifecycle's persistence model: the
 * lifecycle decides on them and writes back only the columns that changed.
 */
import { OrderState, ParcelState, TERMINAL_ORDER_STATES } from '../../../shared/src/enums.js';
import type { OrderRow, ParcelRow } from '../db/schema.js';
import type { Tx } from '../db/transaction.js';

/** An order and its locker, as the periodic sweeps pick them before locking the locker. */
export interface OrderAtLocker {
  orderId: string;
  lockerId: number;
}

/** A parcel of another order the cloud has in a cell. */
export interface ParcelInCell {
  orderId: string;
  barcode: string;
  state: ParcelState;
}

export function findOrder(db: Tx, marketplaceId: string, externalId: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('marketplace_id', '=', marketplaceId).where('external_id', '=', externalId).executeTakeFirst();
}

export function findOrderById(db: Tx, orderId: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
}

/** The order's parcels by position. */
export function loadParcels(db: Tx, orderId: string): Promise<ParcelRow[]> {
  return db.selectFrom('parcels').selectAll().where('order_id', '=', orderId).orderBy('position').execute();
}

/** The marketplace's newest order with a parcel of this barcode (a marketplace may reuse barcodes). */
export function newestOrderWithParcel(db: Tx, marketplaceId: string, barcode: string): Promise<OrderRow | undefined> {
  return db
    .selectFrom('orders')
    .innerJoin('parcels', 'parcels.order_id', 'orders.id')
    .selectAll('orders')
    .where('orders.marketplace_id', '=', marketplaceId)
    .where('parcels.barcode', '=', barcode)
    .orderBy('orders.created_at', 'desc')
    .executeTakeFirst();
}

/** The locker's orders not in a terminal state, by id, each with its parcels. */
export async function activeOrdersAt(db: Tx, lockerId: number): Promise<{ order: OrderRow; parcels: ParcelRow[] }[]> {
  const orders = await db
    .selectFrom('orders')
    .selectAll()
    .where('locker_id', '=', lockerId)
    .where('state', 'not in', [...TERMINAL_ORDER_STATES])
    .orderBy('id')
    .execute();
  if (orders.length === 0) return [];
  const parcels = await db
    .selectFrom('parcels')
    .selectAll()
    .where('order_id', 'in', orders.map((o) => o.id))
    .execute();
  return orders.map((order) => ({ order, parcels: parcels.filter((p) => p.order_id === order.id) }));
}

/** Courier loaded orders whose storage ended by `now`, earliest deadline first. */
export async function ordersWithStorageEnded(db: Tx, now: number, limit: number): Promise<OrderAtLocker[]> {
  const rows = await db
    .selectFrom('orders')
    .select(['id', 'locker_id'])
    .where('state', '=', OrderState.CourierLoaded)
    .where('hold_until', '<=', now)
    .orderBy('hold_until')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ orderId: r.id, lockerId: r.locker_id }));
}

/**
 * Return initiated orders that may move on: their locker applied the revoking upsert, no revoking
 * cseq is recorded yet, or they entered the state at `confirmedBefore` or earlier. Oldest first;
 * only `lockerId`'s orders when given.
 */
export async function returnsToComplete(db: Tx, confirmedBefore: number, limit: number, lockerId?: number): Promise<OrderAtLocker[]> {
  let query = db
    .selectFrom('orders')
    .innerJoin('lockers', 'lockers.id', 'orders.locker_id')
    .leftJoin('order_revocations', 'order_revocations.order_id', 'orders.id')
    .select(['orders.id', 'orders.locker_id'])
    .where('orders.state', '=', OrderState.ReturnInitiated)
    .where((eb) =>
      eb.or([
        eb('orders.state_changed_at', '<=', confirmedBefore),
        eb('order_revocations.revoke_cseq', 'is', null),
        eb('order_revocations.revoke_cseq', '<=', eb.ref('lockers.applied_cseq')),
      ]),
    )
    .orderBy('orders.state_changed_at')
    .limit(limit);
  if (lockerId !== undefined) query = query.where('orders.locker_id', '=', lockerId);
  return (await query.execute()).map((r) => ({ orderId: r.id, lockerId: r.locker_id }));
}

/** New orders delivered on `latestDate` or before that still hold a reserved cell, with their locker's time zone. */
export async function ordersHoldingReservations(
  db: Tx,
  latestDate: string,
): Promise<(OrderAtLocker & { dateDelivery: string; timezone: string })[]> {
  const rows = await db
    .selectFrom('orders')
    .innerJoin('lockers', 'lockers.id', 'orders.locker_id')
    .select(['orders.id', 'orders.locker_id', 'orders.date_delivery', 'lockers.timezone'])
    .where('orders.state', '=', OrderState.New)
    .where('orders.date_delivery', '<=', latestDate)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('parcels')
          .select('parcels.barcode')
          .whereRef('parcels.order_id', '=', 'orders.id')
          .where('parcels.state', '=', ParcelState.Pending)
          .where('parcels.cell_id', 'is not', null),
      ),
    )
    .execute();
  return rows.map((r) => ({ orderId: r.id, lockerId: r.locker_id, dateDelivery: r.date_delivery, timezone: r.timezone }));
}

/** Parcels of the locker's other live orders the cloud has in (or reserved for) the cell, oldest order first. */
export async function parcelsInCell(db: Tx, lockerId: number, cellId: number, exceptOrderId: string): Promise<ParcelInCell[]> {
  const rows = await db
    .selectFrom('parcels')
    .innerJoin('orders', 'orders.id', 'parcels.order_id')
    .select(['orders.id as order_id', 'parcels.barcode', 'parcels.state'])
    .where('orders.locker_id', '=', lockerId)
    .where('parcels.cell_id', '=', cellId)
    .where('parcels.order_id', '!=', exceptOrderId)
    .where('parcels.state', 'in', [ParcelState.Pending, ParcelState.Loaded, ParcelState.AwaitingReturn])
    .where('orders.state', 'not in', [OrderState.ClientReceived, OrderState.CourierPickedUp, OrderState.Cancelled])
    .orderBy('orders.created_at')
    .execute();
  return rows.map((r) => ({ orderId: r.order_id, barcode: r.barcode, state: r.state as ParcelState }));
}
