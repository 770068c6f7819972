/**
 * The full intent of one locker, sent instead of a replay when the command log no longer
 * reaches back: its layout, the orders that still concern it, and the courier grants still
 * valid. It replaces everything the agent holds from the cloud; physical facts stay the agent's.
 */
import { TERMINAL_ORDER_STATES } from '../../../shared/src/enums.js';
import type { CourierGrant, OrderIntent, Snapshot } from '../../../shared/src/protocol.js';
import type { Clock } from '../clock.js';
import type { Tx } from '../db/transaction.js';
import { lockerConfig } from '../lockers/cells.js';
import { orderIntent, type ReservationRule } from '../orders/intent.js';
import type { SnapshotBuilder } from './down-stream.js';

async function activeOrders(tx: Tx, lockerId: number, rule: ReservationRule | undefined): Promise<OrderIntent[]> {
  const orders = await tx
    .selectFrom('orders')
    .selectAll()
    .where('locker_id', '=', lockerId)
    .where('state', 'not in', [...TERMINAL_ORDER_STATES])
    .orderBy('id')
    .execute();
  if (orders.length === 0) return [];
  const parcels = await tx
    .selectFrom('parcels')
    .selectAll()
    .where('order_id', 'in', orders.map((o) => o.id))
    .execute();
  return orders.map((o) => orderIntent(o, parcels.filter((p) => p.order_id === o.id), rule));
}

async function validGrants(tx: Tx, lockerId: number, now: number): Promise<CourierGrant[]> {
  const rows = await tx
    .selectFrom('route_sheet_lockers as rsl')
    .innerJoin('route_sheets as rs', 'rs.id', 'rsl.route_sheet_id')
    .select(['rsl.route_sheet_id', 'rsl.code_hash', 'rsl.valid_until', 'rs.partner_id', 'rs.courier_id'])
    .where('rsl.locker_id', '=', lockerId)
    .where('rsl.valid_until', '>', now)
    .orderBy('rsl.route_sheet_id')
    .execute();
  if (rows.length === 0) return [];
  const links = await tx
    .selectFrom('partner_marketplaces')
    .select(['partner_id', 'marketplace_id'])
    .where('partner_id', 'in', [...new Set(rows.map((r) => r.partner_id))])
    .orderBy('marketplace_id')
    .execute();
  // The same grant as the route sheet's `courier.grant` command (cloud/src/couriers/route-sheet.ts).
  return rows.map((r) => ({
    grantId: `${r.route_sheet_id}:${lockerId}`,
    codeHash: r.code_hash,
    validUntil: r.valid_until,
    marketplaceIds: links.filter((l) => l.partner_id === r.partner_id).map((l) => l.marketplace_id),
    courierRef: r.courier_id,
  }));
}

/** `reservationGraceMinutes`: the cloud's release grace, for each order's `loadableUntil` (none without it). */
export function lockerSnapshotBuilder(clock: Clock, reservationGraceMinutes?: number): SnapshotBuilder {
  return async (tx, lockerId, cseq): Promise<Snapshot> => {
    const locker = await tx.selectFrom('lockers').selectAll().where('id', '=', lockerId).executeTakeFirstOrThrow();
    const cells = await tx.selectFrom('cells').selectAll().where('locker_id', '=', lockerId).execute();
    return {
      cseq,
      config: lockerConfig(locker, cells),
      orders: await activeOrders(
        tx,
        lockerId,
        reservationGraceMinutes === undefined ? undefined : { timezone: locker.timezone, graceMinutes: reservationGraceMinutes },
      ),
      grants: await validGrants(tx, lockerId, clock.now()),
    };
  };
}
