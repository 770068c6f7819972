/**
 * The order's whole intent as the locker receives it (`order.upsert`): built from the order and
 * parcel rows after every change, so applying it is idempotent and a later command supersedes an
 * earlier one completely.
 */
import { OrderState, ParcelState } from '../../../shared/src/enums.js';
import type { OrderIntent, ParcelIntent } from '../../../shared/src/protocol.js';
import type { OrderRow, ParcelRow } from '../db/schema.js';
import { endOfLocalDay } from '../lockers/locker-time.js';
import type { LockerCommandDraft } from '../outbox/record-change.js';

/** What decides when a reservation lapses: the locker's time zone and the release grace. */
export interface ReservationRule {
  timezone: string;
  graceMinutes: number;
}

/** Instant after which a reservation for `dateDelivery` is released. */
export function reservationExpiry(dateDelivery: string, timezone: string, graceMinutes: number): number {
  return endOfLocalDay(dateDelivery, timezone) + 1 + graceMinutes * 60_000;
}

/**
 * `loadableUntil` of the intent: while the order holds reserved cells, the instant the cloud
 * releases them; the locker will not load under this intent after it (the release, or a new
 * reservation, comes as a later upsert). No reservation: null.
 */
export function loadableUntil(order: OrderRow, parcels: readonly ParcelRow[], rule: ReservationRule): number | null {
  const reserved = order.state === OrderState.New && parcels.some((p) => p.state === ParcelState.Pending && p.cell_id !== null);
  return reserved ? reservationExpiry(order.date_delivery, rule.timezone, rule.graceMinutes) : null;
}

function parcelIntent(p: ParcelRow): ParcelIntent {
  const dims = { length: p.length, width: p.width, height: p.height };
  const stated = Object.fromEntries(Object.entries(dims).filter(([, v]) => v !== null)) as ParcelIntent['dimension'];
  return {
    barcode: p.barcode,
    additionalBarcodes: JSON.parse(p.additional_barcodes) as string[],
    dimension: Object.keys(stated ?? {}).length > 0 ? stated : null,
    state: p.state as ParcelState,
    cellId: p.cell_id,
  };
}

/**
 * Every intent carries `loadableUntil`, so that the locker's copy of an order is the same whichever
 * path sent it last. Without `rule` it is null: only for orders that cannot hold a reservation
 * (any state but New), whose paths do not know the rule.
 */
export function orderIntent(order: OrderRow, parcels: readonly ParcelRow[], rule?: ReservationRule): OrderIntent {
  return {
    orderId: order.id,
    externalId: order.external_id,
    number: order.number,
    marketplaceId: order.marketplace_id,
    state: order.state as OrderState,
    dateDelivery: order.date_delivery,
    holdUntil: order.hold_until,
    pickupCodeHash: order.pickup_code_hash,
    parcels: [...parcels].sort((a, b) => a.position - b.position).map(parcelIntent),
    loadableUntil: rule ? loadableUntil(order, parcels, rule) : null,
  };
}

export function upsertCommand(order: OrderRow, parcels: readonly ParcelRow[], rule?: ReservationRule): LockerCommandDraft {
  return { lockerId: order.locker_id, body: { type: 'order.upsert', order: orderIntent(order, parcels, rule) } };
}
