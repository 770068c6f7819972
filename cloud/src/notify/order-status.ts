/**
 * The order-status notification of one parcel, field for field as the spec's Events section:
 * `postamat_id` and `cell_id` only in the placement event (3); `dt` in the locker's offset.
 */
import { ORDER_STATE_TEXT } from '../../../shared/src/enums.js';
import type { OrderRow } from '../db/schema.js';
import { isoWithOffset } from '../lockers/locker-time.js';
import type { NotificationDraft } from '../outbox/record-change.js';

/** States that have an order-status event. */
export type StatusEvent = 2 | 3 | 4 | 7;

export interface ParcelPlace {
  lockerId: number;
  cellId: number;
}

export function orderStatusNotification(
  order: Pick<OrderRow, 'id' | 'external_id' | 'marketplace_id'>,
  barcode: string,
  event: StatusEvent,
  at: number,
  timezone: string,
  place?: ParcelPlace,
): NotificationDraft {
  return {
    marketplaceId: order.marketplace_id,
    orderId: order.id,
    kind: 'order-status',
    body: {
      ...(place ? { postamat_id: String(place.lockerId), cell_id: place.cellId } : {}),
      id: order.external_id,
      barcode,
      event_id: String(event),
      status: ORDER_STATE_TEXT[event],
      dt: isoWithOffset(at, timezone),
    },
  };
}
