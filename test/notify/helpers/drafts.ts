/** Notifications as the domain records them, for tests that drive the dispatcher directly. */
import type { NotificationDraft } from '../../../cloud/src/outbox/record-change.js';

/** `order-status` number `n` of order `order` (barcode `<order>-<n>`), for marketplace shop-a. */
export function statusDraft(order: string, n: number): NotificationDraft {
  return {
    marketplaceId: 'shop-a',
    orderId: `order-${order}`,
    kind: 'order-status',
    body: { id: order, barcode: `${order}-${n}`, event_id: '2', status: 'Client received', dt: '2030-03-04T12:00:00+03:00' },
  };
}
