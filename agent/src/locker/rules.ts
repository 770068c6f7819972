/**
 * What the locker may do with a parcel, decided from the cloud's intent and the locker's own facts
 * (the fact always wins; see docs/agent.md, "Intent and facts").
 */
import { OrderState } from '../../../shared/src/enums.js';
import type { CourierGrant, ParcelIntent } from '../../../shared/src/protocol.js';
import type { LockerStore, ParcelFact, ParcelMatch, ParcelRef, StoredOrder } from '../store/index.js';
import { reservationLapsed } from './intent-age.js';

export type LoadRefusal =
  | { code: 'unknown_parcel' }
  | { code: 'already_loaded'; cellId: number }
  /** Cancelled, handed out, or its order no longer comes to this locker. */
  | { code: 'not_loadable' }
  | { code: 'not_deliverable_yet'; date: string };

/**
 * What a courier's scan leads to: the parcel to load, a refusal, or a choice the courier must make
 * because several parcels the courier may load answer to the barcode (the locker never guesses).
 */
export type LoadDecision = { kind: 'load'; order: StoredOrder; parcel: ParcelIntent } | { kind: 'refused'; refusal: LoadRefusal };
export type LoadCheck = LoadDecision | { kind: 'choose'; candidates: ParcelMatch[] };

const REFUSAL_RANK: Record<LoadRefusal['code'], number> = { already_loaded: 3, not_deliverable_yet: 2, not_loadable: 1, unknown_parcel: 0 };

/** When a scan is judged: `today` in locker time, `now` epoch ms by the locker's clock. */
export interface LoadTime {
  today: string;
  now: number;
}

/** Why this parcel cannot be loaded now, or null when it can. */
function loadRefusal(store: LockerStore, { order, parcel }: ParcelMatch, { today, now }: LoadTime): LoadRefusal | null {
  const fact = store.parcels.get(order.intent.orderId, parcel.barcode);
  if (fact?.state === 'in_cell') return { code: 'already_loaded', cellId: fact.cellId };
  // A parcel the cloud believes loaded but this locker has no fact of may still be loaded: the fact decides.
  const parcelOk = parcel.state === 'pending' || parcel.state === 'loaded';
  const orderOk = !order.removed && (order.intent.state === OrderState.New || order.intent.state === OrderState.CourierLoaded);
  if (fact || !parcelOk || !orderOk) return { code: 'not_loadable' };
  // A reservation the cloud has released by now (its order.upsert may still be on its way) is not loadable.
  if (reservationLapsed(order, now)) return { code: 'not_loadable' };
  if (today < order.intent.dateDelivery) return { code: 'not_deliverable_yet', date: order.intent.dateDelivery };
  return null;
}

/**
 * The parcels a barcode names for this courier: only orders of the grant's marketplaces (the grant
 * is this locker's, so only this locker's orders). Barcodes are unique only within a marketplace;
 * another marketplace's parcel with the same barcode is not this courier's to load.
 */
function parcelsFor(store: LockerStore, grant: CourierGrant, barcode: string): ParcelMatch[] {
  return store.orders.findByBarcodeOf(barcode, grant.marketplaceIds);
}

/**
 * Whether a scanned barcode (own or additional) names a parcel this courier may load now. When
 * more than one of the courier's parcels answers to it and none of them is in a cell or handed
 * out (any of them may be the one in the courier's hands), and at least one could be loaded, the
 * courier chooses among them.
 */
export function checkLoad(store: LockerStore, grant: CourierGrant, barcode: string, at: LoadTime): LoadCheck {
  const matches = parcelsFor(store, grant, barcode);
  const inHand = matches.filter((m) => store.parcels.get(m.order.intent.orderId, m.parcel.barcode) === null);
  if (inHand.length > 1 && inHand.some((m) => loadRefusal(store, m, at) === null)) return { kind: 'choose', candidates: inHand };
  return firstLoadable(store, matches, at);
}

/** The courier's choice among the candidates of a scan: that order's parcel, checked again now. */
export function checkChosenLoad(store: LockerStore, grant: CourierGrant, barcode: string, orderId: string, at: LoadTime): LoadDecision {
  return firstLoadable(store, parcelsFor(store, grant, barcode).filter((m) => m.order.intent.orderId === orderId), at);
}

function firstLoadable(store: LockerStore, matches: readonly ParcelMatch[], at: LoadTime): LoadDecision {
  let refusal: LoadRefusal = { code: 'unknown_parcel' };
  for (const m of matches) {
    const r = loadRefusal(store, m, at);
    if (r === null) return { kind: 'load', order: m.order, parcel: m.parcel };
    if (REFUSAL_RANK[r.code] > REFUSAL_RANK[refusal.code]) refusal = r;
  }
  return { kind: 'refused', refusal };
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
