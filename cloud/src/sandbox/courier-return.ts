/**
 * A courier collects the returns: at each sandbox locker holding parcels of the marketplace that
 * await return, the marketplace's sandbox courier signs in, presses "Collect returns", takes the
 * parcels out of every cell that opens and pushes the doors shut. The locker records each parcel
 * returned (`parcel.returned`), and an order with nothing left in the locker becomes Courier
 * picked up (4), with its `order-status` 4 per parcel. The courier's grant carries only this
 * marketplace (sandbox-partner.ts), so no cell of another marketplace opens.
 */
import { ParcelState } from '../../../shared/src/enums.js';
import type { Marketplace } from '../repositories/accounts.js';
import { activeLockers } from '../repositories/lockers.js';
import { activeOrdersAt, loadParcels } from '../repositories/orders.js';
import { courierSignsIn, effect, lockOf, type OrderEffect, repairExercisedJams, rigFor, type SandboxDeps, until } from './play.js';

export interface LockerReturns {
  postamatId: number;
  /** Cells that opened for the courier, and those whose doors did not (a jammed lock: their parcels stay). */
  openedCells: number[];
  failedCells: number[];
}

export interface ReturnEffect {
  postamats: LockerReturns[];
  /** The orders whose parcels were to be collected, as they are now (Courier picked up, 4, once all came out). */
  orders: OrderEffect[];
}

/** The marketplace's orders at the locker with parcels awaiting return. */
async function returnsAt(deps: SandboxDeps, marketplace: Marketplace, lockerId: number): Promise<string[]> {
  const active = await activeOrdersAt(deps.cdb.db, lockerId);
  return active
    .filter(({ order, parcels }) => order.marketplace_id === marketplace.id && parcels.some((p) => p.state === ParcelState.AwaitingReturn))
    .map(({ order }) => order.id);
}

/** Every parcel of the marketplace awaiting return at a sandbox locker comes out; answers once the cloud recorded them returned. */
export async function courierCollectsReturns(deps: SandboxDeps, marketplace: Marketplace): Promise<ReturnEffect> {
  const postamats: LockerReturns[] = [];
  const orderIds: string[] = [];
  for (const locker of await activeLockers(deps.cdb.db, { sandbox: true })) {
    const due = await returnsAt(deps, marketplace, locker.id);
    if (due.length === 0) continue;
    const rig = await rigFor(deps, locker.id);
    const hands = await courierSignsIn(deps, marketplace, rig, locker);
    let opened: number[] = [];
    let failed: number[] = [];
    try {
      const shown = await hands.collectReturns();
      if (shown.view.screen === 'take_open') {
        opened = shown.view.cells ?? [];
        failed = shown.view.failedCells ?? [];
      } else if (shown.error?.code === 'door_fault' || shown.error?.code === 'door_unknown') {
        failed = (shown.error.cells as number[] | undefined) ?? [];
      }
      for (const cellId of opened) {
        const lock = lockOf(rig, cellId);
        await hands.takeParcel(lock);
        await hands.closeDoor(lock);
      }
      // A door that did not open shows its error beside the open ones: the wait is for the screen alone.
      if (opened.length > 0) await until(deps, { ru: 'двери будут записаны закрытыми', en: 'the doors to be recorded closed' }, async () => ((s) => (s.view.screen === 'courier' && !s.busy ? true : undefined))(await hands.screen()));
    } finally {
      await hands.tap('home');
    }
    if (opened.length > 0) {
      await until(deps, { ru: `облако запишет возвраты в постамате ${locker.id}`, en: `the cloud to record the returns at locker ${locker.id}` }, async () => {
        for (const id of due) {
          const parcels = await loadParcels(deps.cdb.db, id);
          if (parcels.some((p) => p.state === ParcelState.AwaitingReturn && p.cell_id !== null && opened.includes(p.cell_id))) return undefined;
        }
        return true;
      });
    }
    await repairExercisedJams(deps, rig, failed);
    postamats.push({ postamatId: locker.id, openedCells: opened, failedCells: failed });
    orderIds.push(...due);
  }
  const orders = await Promise.all(orderIds.map((id) => effect(deps, id)));
  return { postamats, orders };
}
