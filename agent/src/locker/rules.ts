/**
 * What the locker may do with a parcel, decided from the cloud's intent and the locker's own facts
 * (the fact always wins; see docs/agent.md, "Intent and facts").
 */
import { OrderState } from '../../../shared/src/enums.js';
import type { CourierGrant, ParcelIntent } from '../../../shared/src/protocol.js';
import type { LockerStore, ParcelFact, ParcelRef, StoredOrder } from '../store/index.js';
import { reservationLapsed } from './intent-age.js';

export type LoadRefusal =
  | { code: 'unknown_parcel' }
  | { code: 'already_loaded'; cellId: number }
  /** Cancelled, handed out, or its order no longer comes to this locker. */
  | { code: 'not_loadable' }
  | { code: 'not_deliverable_yet'; date: string };

export type LoadCheck = { ok: true; order: StoredOrder; parcel: ParcelIntent } | { ok: false; refusal: LoadRefusal };

const REFUSAL_RANK: Record<LoadRefusal['code'], number> = { already_loaded: 3, not_deliverable_yet: 2, not_loadable: 1, unknown_parcel: 0 };

/** Whether a scanned barcode names a parcel a courier may load now (`today` in locker time, `now` epoch ms). */
export function checkLoad(store: LockerStore, barcode: string, today: string, now?: number): LoadCheck {
  let refusal: LoadRefusal = { code: 'unknown_parcel' };
  const worse = (r: LoadRefusal) => {
    if (REFUSAL_RANK[r.code] > REFUSAL_RANK[refusal.code]) refusal = r;
  };
  for (const { order, parcel } of store.orders.findByBarcode(barcode)) {
    const fact = store.parcels.get(order.intent.orderId, parcel.barcode);
    if (fact?.state === 'in_cell') {
      worse({ code: 'already_loaded', cellId: fact.cellId });
      continue;
    }
    // A parcel the cloud believes loaded but this locker has no fact of may still be loaded: the fact decides.
    const parcelOk = parcel.state === 'pending' || parcel.state === 'loaded';
    const orderOk = !order.removed && (order.intent.state === OrderState.New || order.intent.state === OrderState.CourierLoaded);
    if (fact || !parcelOk || !orderOk) {
      worse({ code: 'not_loadable' });
      continue;
    }
    if (now !== undefined && reservationLapsed(order, now)) {
      worse({ code: 'not_loadable' });
      continue;
    }
    if (today < order.intent.dateDelivery) {
      worse({ code: 'not_deliverable_yet', date: order.intent.dateDelivery });
      continue;
    }
    return { ok: true, order, parcel };
  }
  return { ok: false, refusal };
}

/** An in-cell parcel a courier takes back: cancelled, storage over (6/7), or no longer wanted here. */
export function isReturnable(order: StoredOrder | null, parcel: ParcelIntent | undefined): boolean {
  if (!order || order.removed || !parcel) return true;
  if (order.intent.state === OrderState.ReturnInitiated || order.intent.state === OrderState.AwaitingReturn) return true;
  return parcel.state === 'cancelled' || parcel.state === 'awaiting_return';
}

export interface CellParcels {
  cellId: number;
  parcels: ParcelRef[];
}

function byCell(facts: ParcelFact[]): CellParcels[] {
  const map = new Map<number, ParcelRef[]>();
  for (const f of facts) map.set(f.cellId, [...(map.get(f.cellId) ?? []), { orderId: f.orderId, barcode: f.barcode }]);
  return [...map.entries()].sort(([a], [b]) => a - b).map(([cellId, parcels]) => ({ cellId, parcels }));
}

function intentOf(order: StoredOrder | null, barcode: string): ParcelIntent | undefined {
  return order?.intent.parcels.find((p) => p.barcode === barcode);
}

/** Parcels this courier may collect, by cell: returnable parcels of the grant's marketplaces. */
export function returnsFor(store: LockerStore, grant: CourierGrant): CellParcels[] {
  const facts = store.parcels.inCells().filter((f) => {
    const order = store.orders.get(f.orderId);
    // A parcel whose order the locker no longer knows has no marketplace to match: any courier may take it back.
    if (order && !grant.marketplaceIds.includes(order.intent.marketplaceId)) return false;
    return isReturnable(order, intentOf(order, f.barcode));
  });
  return byCell(facts);
}

/** The cells to open for a customer's order: every in-cell parcel of it that is not to be returned. */
export function pickupFor(store: LockerStore, order: StoredOrder): CellParcels[] {
  const facts = store.parcels.ofOrder(order.intent.orderId).filter((f) => f.state === 'in_cell' && !isReturnable(order, intentOf(order, f.barcode)));
  return byCell(facts);
}

/** The customer's order for a pick-up code hash: Courier loaded (3) and not removed. */
export function orderForPickup(store: LockerStore, hash: string): StoredOrder | null {
  return store.orders.byPickupCodeHash(hash).find((o) => o.intent.state === OrderState.CourierLoaded) ?? null;
}
