/** The domain hook of link tests: one notification row per applied event, in the event's transaction. */
import type { Tx } from '../../cloud/src/db/transaction.js';
import { recordChange } from '../../cloud/src/outbox/record-change.js';
import type { LockerEvent } from '../../shared/src/protocol.js';

export async function recordEffect(tx: Tx, lockerId: number, event: LockerEvent): Promise<void> {
  await recordChange(tx, {
    at: event.at,
    notifications: [
      { marketplaceId: 'm', orderId: `${lockerId}:${event.dseq}`, kind: 'expiration-date-changes', body: { id: String(event.dseq), event_dt: '', expire_dt: '' } },
    ],
  });
}
