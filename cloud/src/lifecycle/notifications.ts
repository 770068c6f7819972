/**
 * The one builder of each notification an order owes its marketplace, field for field as the
 * spec's Events section: `postamat_id` and `cell_id` only in the placement event (3); times in the
 * locker's offset.
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

type OrderRef = Pick<OrderRow, 'id' | 'external_id' | 'marketplace_id'>;

export function orderStatusNotification(order: OrderRef, barcode: string, event: StatusEvent, at: number, timezone: string, place?: ParcelPlace): NotificationDraft {
  return {
    marketplaceId: order.marketplace_id,
    orderId: order.id,
    kind: 'order-status',
    body: {
      ...(place ? { postamat_id: String(place.lockerId), cell_id: place.cellId } : {}),
      id: order.external_id,
      barcode,
      event_id: `${event}` as const,
      status: ORDER_STATE_TEXT[event],
      dt: isoWithOffset(at, timezone),
    },
  };
}

/** The customer's pick-up code (never logged: it travels only in this notification). */
export function userAccessCodeNotification(order: OrderRef, lockerId: number, code: string): NotificationDraft {
  return {
    marketplaceId: order.marketplace_id,
    orderId: order.id,
    kind: 'user-access-code',
    body: { id: order.external_id, postamat_id: String(lockerId), access_code: code },
  };
}

/** The storage deadline, when the clock starts and when it is extended. */
export function expirationDateChangesNotification(order: OrderRef, at: number, holdUntil: number, timezone: string): NotificationDraft {
  return {
    marketplaceId: order.marketplace_id,
    orderId: order.id,
    kind: 'expiration-date-changes',
    body: { id: order.external_id, event_dt: isoWithOffset(at, timezone), expire_dt: isoWithOffset(holdUntil, timezone) },
  };
}
