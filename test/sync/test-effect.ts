/** The domain hook of link tests: one notification row per applied event, in the event's transaction. */
import type { Tx } from '../../cloud/src/db/transaction.js';
import { recordChange } from '../../cloud/src/outbox/record-change.js';
import type { LockerEvent } from '../../shared/src/protocol.js';

/**
 * `${lockerId}:${dseq}` of events whose effect fails, after its row was written (the row must be
 * undone), for as long as the key is in the set: a fact the domain cannot take until a fix.
 */
export const failing = new Set<string>();

export async function recordEffect(tx: Tx, lockerId: number, event: LockerEvent): Promise<void> {
  await recordChange(tx, {
    at: event.at,
    notifications: [
      { marketplaceId: 'm', orderId: `${lockerId}:${event.dseq}`, kind: 'expiration-date-changes', body: { id: String(event.dseq), event_dt: '', expire_dt: '' } },
    ],
  });
  if (failing.has(`${lockerId}:${event.dseq}`)) throw new Error(`effect of event ${event.dseq} failed`);
}
