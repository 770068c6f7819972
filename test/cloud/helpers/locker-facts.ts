/**
 * Order states the HTTP API alone cannot reach (a courier loading parcels, storage running out),
 * written the way the locker link and the storage clock write them: in a locker transaction,
 * through the order lifecycle, with the order.upsert the change owes.
 */
import { ParcelState } from '../../../shared/src/enums.js';
import type { OrderRow, ParcelRow } from '../../../cloud/src/db/schema.js';
import { lockerTransaction, type Tx } from '../../../cloud/src/db/transaction.js';
import { applyTransition, type LifecycleDeps } from '../../../cloud/src/lifecycle/apply.js';
import { parcelStep } from '../../../cloud/src/lifecycle/decide.js';
import { stepParcel } from '../../../cloud/src/lifecycle/parcel-step.js';
import type { LifecycleEvent } from '../../../cloud/src/lifecycle/table.js';
import { findOrder, loadParcels } from '../../../cloud/src/repositories/orders.js';
import { lockerById } from '../../../cloud/src/repositories/lockers.js';
import { cryptoRandom } from '../../../cloud/src/random.js';
import type { TestCloud } from './test-cloud.js';

async function orderOf(tc: TestCloud, marketplaceId: string, externalId: string) {
  const order = await findOrder(tc.db.db, marketplaceId, externalId);
  if (!order) throw new Error(`no order ${externalId}`);
  return order;
}

/** One lifecycle event on the order, with `step` deciding each parcel's row after it. */
async function transition(
  tc: TestCloud,
  tx: Tx,
  order: OrderRow,
  event: LifecycleEvent,
  step: (p: ParcelRow, now: number) => ParcelRow,
  deps?: LifecycleDeps,
): Promise<void> {
  const parcels = await loadParcels(tx, order.id);
  const locker = await lockerById(tx, order.locker_id);
  const now = tc.clock.now();
  await applyTransition(tx, deps, { event, before: order, order, parcelsBefore: parcels, parcels: parcels.map((p) => step(p, now)), locker, at: now });
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
    let code: string | undefined;
    const random = { ...cryptoRandom, digits: (n: number) => (code = cryptoRandom.digits(n)) };
    await transition(
      tc,
      tx,
      order,
      'parcel.loaded',
      (p, now) => {
        if (p.state !== ParcelState.Pending || (opts.barcodes && !opts.barcodes.includes(p.barcode))) return p;
        const cell = opts.cells?.[p.barcode] ?? p.cell_id;
        if (cell === null || cell === undefined) throw new Error(`parcel ${p.barcode} has no cell to load into`);
        return stepParcel(p, parcelStep('parcel.loaded', p.state, ['orderNew', 'otherCell']), now, { cellId: cell, at: now });
      },
      { random, pickupCodeLength: 6 },
    );
    return code;
  });
}

/** Storage ran out and the locker confirmed: the order is Awaiting return (7), its parcels await a courier. */
export async function expireToAwaitingReturn(tc: TestCloud, marketplaceId: string, externalId: string): Promise<void> {
  const seen = await orderOf(tc, marketplaceId, externalId);
  await lockerTransaction(tc.db, [seen.locker_id], async (tx) => {
    await transition(tc, tx, (await findOrder(tx, marketplaceId, externalId))!, 'storage.expired', (p) => p);
    await transition(tc, tx, (await findOrder(tx, marketplaceId, externalId))!, 'revocation.confirmed', (p) => p);
  });
}

/** The customer took every loaded parcel: the order is Client received (2). */
export async function receiveByCustomer(tc: TestCloud, marketplaceId: string, externalId: string): Promise<void> {
  const seen = await orderOf(tc, marketplaceId, externalId);
  await lockerTransaction(tc.db, [seen.locker_id], async (tx) => {
    const order = (await findOrder(tx, marketplaceId, externalId))!;
    await transition(tc, tx, order, 'parcel.received', (p, now) => (p.state === ParcelState.Loaded ? stepParcel(p, parcelStep('parcel.received', p.state), now) : p));
  });
}
