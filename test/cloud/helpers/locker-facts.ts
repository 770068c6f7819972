/**
 * Order states the HTTP API alone cannot reach (a courier loading parcels, storage running out),
 * written the way the locker link records them: in a locker transaction, through the same domain
 * function that enters Courier loaded, with the order.upsert the change owes.
 */
import { OrderState, ParcelState } from '../../../shared/src/enums.js';
import { lockerTransaction } from '../../../cloud/src/db/transaction.js';
import { upsertCommand } from '../../../cloud/src/orders/intent.js';
import { findOrder, loadParcels } from '../../../cloud/src/orders/order-store.js';
import { enterCourierLoaded } from '../../../cloud/src/orders/pickup.js';
import { recordChange } from '../../../cloud/src/outbox/record-change.js';
import { cryptoRandom } from '../../../cloud/src/random.js';
import type { TestCloud } from './test-cloud.js';

async function orderOf(tc: TestCloud, marketplaceId: string, externalId: string) {
  const order = await findOrder(tc.db.db, marketplaceId, externalId);
  if (!order) throw new Error(`no order ${externalId}`);
  return order;
}

/** The courier put parcels in (their reserved cell, or `cells[barcode]`). Returns the pick-up code once the order is loaded. */
export async function loadIntoLocker(
  tc: TestCloud,
  marketplaceId: string,
  externalId: string,
  opts: { barcodes?: string[]; cells?: Record<string, number> } = {},
): Promise<string | undefined> {
  const seen = await orderOf(tc, marketplaceId, externalId);
  return lockerTransaction(tc.db, [seen.locker_id], async (tx) => {
    const order = (await findOrder(tx, marketplaceId, externalId))!;
    const parcels = await loadParcels(tx, order.id);
    const now = tc.clock.now();
    for (const p of parcels) {
      if (p.state !== ParcelState.Pending || (opts.barcodes && !opts.barcodes.includes(p.barcode))) continue;
      const cell = opts.cells?.[p.barcode] ?? p.cell_id;
      if (cell === null || cell === undefined) throw new Error(`parcel ${p.barcode} has no cell to load into`);
      Object.assign(p, { state: ParcelState.Loaded, cell_id: cell, loaded_at: now });
      await tx.updateTable('parcels').set({ state: p.state, cell_id: cell, loaded_at: now, updated_at: now }).where('order_id', '=', order.id).where('barcode', '=', p.barcode).execute();
    }
    const positions = parcels.filter((p) => p.state === ParcelState.Pending || p.state === ParcelState.Loaded);
    let updated = order;
    let code: string | undefined;
    let notifications: Parameters<typeof recordChange>[1]['notifications'] = [];
    if (positions.length > 0 && positions.every((p) => p.state === ParcelState.Loaded)) {
      const locker = await tx.selectFrom('lockers').selectAll().where('id', '=', order.locker_id).executeTakeFirstOrThrow();
      const marketplace = await tx.selectFrom('marketplaces').selectAll().where('id', '=', marketplaceId).executeTakeFirstOrThrow();
      let issued = '';
      const random = { ...cryptoRandom, digits: (n: number) => (issued = cryptoRandom.digits(n)) };
      const change = await enterCourierLoaded(tx, { random, pickupCodeLength: 6 }, order, locker, marketplace, now);
      code = issued;
      updated = { ...order, ...change.update };
      notifications = change.notifications;
      await tx.updateTable('orders').set(change.update).where('id', '=', order.id).execute();
    }
    await recordChange(tx, { at: now, commands: [upsertCommand(updated, parcels)], notifications });
    return code;
  });
}

/** Every loaded parcel of the order moves to `parcelState`, the order to `orderState` (pick-up code gone). */
async function settleLoaded(tc: TestCloud, marketplaceId: string, externalId: string, parcelState: ParcelState, orderState: OrderState): Promise<void> {
  const order = await orderOf(tc, marketplaceId, externalId);
  const now = tc.clock.now();
  await lockerTransaction(tc.db, [order.locker_id], async (tx) => {
    await tx.updateTable('parcels').set({ state: parcelState, updated_at: now }).where('order_id', '=', order.id).where('state', '=', ParcelState.Loaded).execute();
    await tx
      .updateTable('orders')
      .set({ state: orderState, pickup_code_hash: null, state_changed_at: now, updated_at: now })
      .where('id', '=', order.id)
      .execute();
    const updated = await tx.selectFrom('orders').selectAll().where('id', '=', order.id).executeTakeFirstOrThrow();
    await recordChange(tx, { at: now, commands: [upsertCommand(updated, await loadParcels(tx, order.id))] });
  });
}

/** Storage ran out and the locker confirmed: the order is Awaiting return (7), its parcels await a courier. */
export function expireToAwaitingReturn(tc: TestCloud, marketplaceId: string, externalId: string): Promise<void> {
  return settleLoaded(tc, marketplaceId, externalId, ParcelState.AwaitingReturn, OrderState.AwaitingReturn);
}

/** The customer took every loaded parcel: the order is Client received (2). */
export function receiveByCustomer(tc: TestCloud, marketplaceId: string, externalId: string): Promise<void> {
  return settleLoaded(tc, marketplaceId, externalId, ParcelState.Received, OrderState.ClientReceived);
}
