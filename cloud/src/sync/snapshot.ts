/**
 * The full intent of one locker, sent instead of a replay when the command log no longer
 * reaches back: its layout, the orders that still concern it, and the courier grants still
 * valid. It replaces everything the agent holds from the cloud; physical facts stay the agent's.
 */
import type { CourierGrant, OrderIntent, Snapshot } from '../../../shared/src/protocol.js';
import type { Clock } from '../clock.js';
import type { Tx } from '../db/transaction.js';
import { lockerConfig } from '../lockers/cells.js';
import { orderIntent, type ReservationRule } from '../orders/intent.js';
import { marketplacesOfPartners } from '../repositories/accounts.js';
import { activeGrants } from '../repositories/couriers.js';
import { cellsOf, findLocker } from '../repositories/lockers.js';
import { activeOrdersAt } from '../repositories/orders.js';
import type { SnapshotBuilder } from './down-stream.js';

async function activeOrders(tx: Tx, lockerId: number, rule: ReservationRule | undefined): Promise<OrderIntent[]> {
  return (await activeOrdersAt(tx, lockerId)).map(({ order, parcels }) => orderIntent(order, parcels, rule));
}

async function validGrants(tx: Tx, lockerId: number, now: number): Promise<CourierGrant[]> {
  const grants = await activeGrants(tx, lockerId, now);
  if (grants.length === 0) return [];
  const marketplaces = await marketplacesOfPartners(tx, [...new Set(grants.map((g) => g.partnerId))]);
  // The same grant as the route sheet's `courier.grant` command (cloud/src/couriers/route-sheet.ts).
  return grants.map((g) => ({
    grantId: `${g.routeSheetId}:${lockerId}`,
    codeHash: g.codeHash,
    validUntil: g.validUntil,
    marketplaceIds: marketplaces.get(g.partnerId) ?? [],
    courierRef: g.courierId,
  }));
}

/** `reservationGraceMinutes`: the cloud's release grace, for each order's `loadableUntil` (none without it). */
export function lockerSnapshotBuilder(clock: Clock, reservationGraceMinutes?: number): SnapshotBuilder {
  return async (tx, lockerId, cseq): Promise<Snapshot> => {
    const locker = await findLocker(tx, lockerId);
    if (!locker) throw new Error(`no locker ${lockerId} to snapshot`);
    const cells = await cellsOf(tx, lockerId);
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
