/** Reads of orders and their parcels, always scoped by marketplace where a marketplace asks. */
import type { Kysely } from 'kysely';
import type { Database, LockerRow, MarketplaceRow, OrderRow, ParcelRow } from '../db/schema.js';

type Db = Kysely<Database>;

export function findOrder(db: Db, marketplaceId: string, externalId: string): Promise<OrderRow | undefined> {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('marketplace_id', '=', marketplaceId)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
}

export function orderById(db: Db, orderId: string): Promise<OrderRow> {
  return db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
}

export function loadParcels(db: Db, orderId: string): Promise<ParcelRow[]> {
  return db.selectFrom('parcels').selectAll().where('order_id', '=', orderId).orderBy('position').execute();
}

export function findLocker(db: Db, lockerId: number): Promise<LockerRow | undefined> {
  return db.selectFrom('lockers').selectAll().where('id', '=', lockerId).executeTakeFirst();
}

export function marketplaceById(db: Db, marketplaceId: string): Promise<MarketplaceRow> {
  return db.selectFrom('marketplaces').selectAll().where('id', '=', marketplaceId).executeTakeFirstOrThrow();
}
