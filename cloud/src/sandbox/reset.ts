/**
 * Reset: the calling sandbox marketplace starts again with empty cells, and nothing of another
 * marketplace is touched. Through the production paths, as an integrator could by hand:
 *
 * 1. its receiver outage ends;
 * 2. every position of its orders still pending or loaded is cancelled (order/place/cancel):
 *    reservations are released, parcels in the locker are to be returned;
 * 3. its sandbox courier collects every parcel awaiting return (courier-return.ts);
 * 4. the locks its jams still hold are repaired and the `faulty` flags they raised cleared.
 *
 * The orders stay as the record of what happened (Cancelled, Courier picked up); their
 * externalIds stay taken, as in production.
 */
import { ParcelState } from '../../../shared/src/enums.js';
import { cancelPosition } from '../orders/cancel-position.js';
import { holdReceiver, type Marketplace } from '../repositories/accounts.js';
import { activeLockers } from '../repositories/lockers.js';
import { activeOrdersAt } from '../repositories/orders.js';
import { courierCollectsReturns, type ReturnEffect } from './courier-return.js';
import type { SandboxDeps } from './play.js';

export interface ResetEffect {
  /** Orders whose open positions were cancelled. */
  cancelledOrders: number;
  /** What the courier collected. */
  returns: ReturnEffect;
  /** Cells whose jammed lock was repaired (and `faulty` flag cleared). */
  repairedCells: { postamatId: number; cellId: number }[];
}

export async function resetSandbox(deps: SandboxDeps, marketplace: Marketplace): Promise<ResetEffect> {
  await holdReceiver(deps.cdb.db, marketplace.id, null);

  // Cancelling first: a jam is repaired before the courier opens its cell, so nothing stays behind it.
  const repairedCells: ResetEffect['repairedCells'] = [];
  for (const { lockerId, cellId } of deps.lockers?.jamsOf(marketplace.id) ?? []) {
    await deps.lockers!.repair(lockerId, cellId);
    repairedCells.push({ postamatId: lockerId, cellId });
  }

  let cancelledOrders = 0;
  for (const locker of await activeLockers(deps.cdb.db, { sandbox: true })) {
    for (const { order, parcels } of await activeOrdersAt(deps.cdb.db, locker.id)) {
      if (order.marketplace_id !== marketplace.id) continue;
      const open = parcels.filter((p) => p.state === ParcelState.Pending || p.state === ParcelState.Loaded);
      for (const parcel of open) await cancelPosition(deps, marketplace, { extId: order.external_id, barcode: parcel.barcode });
      if (open.length > 0) cancelledOrders += 1;
    }
  }
  // The courier signs in only once the locker applied the cancellations (play.ts, courierSignsIn).
  const returns = await courierCollectsReturns(deps, marketplace);
  return { cancelledOrders, returns, repairedCells };
}
