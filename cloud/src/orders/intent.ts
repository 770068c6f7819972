/**
 * The order's whole intent as the locker receives it (`order.upsert`): built from the order and
 * parcel rows after every change, so applying it is idempotent and a later command supersedes an
 * earlier one completely.
 */
import type { OrderState, ParcelState } from '../../../shared/src/enums.js';
import type { OrderIntent, ParcelIntent } from '../../../shared/src/protocol.js';
import type { OrderRow, ParcelRow } from '../db/schema.js';
import type { LockerCommandDraft } from '../outbox/record-change.js';

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

export function orderIntent(order: OrderRow, parcels: readonly ParcelRow[]): OrderIntent {
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
  };
}

export function upsertCommand(order: OrderRow, parcels: readonly ParcelRow[]): LockerCommandDraft {
  return { lockerId: order.locker_id, body: { type: 'order.upsert', order: orderIntent(order, parcels) } };
}
