/**
 * The one domain-event path: every change of an order records, in the caller's transaction, the
 * commands it sends to lockers (numbered per locker, `cseq`) and the notifications it owes the
 * marketplace. Sync and notification delivery only ever send what was recorded here, so a change
 * and its consequences commit or roll back together.
 *
 * The caller must hold the locker rows (lockerTransaction with every locker in `commands`).
 */
import type { CommandBody } from '../../../shared/src/protocol.js';
import type { Tx } from '../db/transaction.js';
import type { ExpirationDateChangesBody, OrderStatusBody, UserAccessCodeBody } from '../contract/notifications.js';
import { appendCommand } from '../repositories/locker-stream.js';
import { insertNotification } from '../repositories/notifications.js';

/** Bodies of the three outbound operations of the spec (contract/notifications.ts). */
export type { ExpirationDateChangesBody, OrderStatusBody, UserAccessCodeBody };

export type NotificationDraft =
  | { marketplaceId: string; orderId: string; kind: 'order-status'; body: OrderStatusBody }
  | { marketplaceId: string; orderId: string; kind: 'user-access-code'; body: UserAccessCodeBody }
  | { marketplaceId: string; orderId: string; kind: 'expiration-date-changes'; body: ExpirationDateChangesBody };
export type NotificationKind = NotificationDraft['kind'];

export interface LockerCommandDraft {
  lockerId: number;
  body: CommandBody;
}

export interface Change {
  /** Injected clock time of the change. */
  at: number;
  commands?: readonly LockerCommandDraft[];
  notifications?: readonly NotificationDraft[];
  /** The X-Request-Id of the API call that made the change, stored with (and sent with) its notifications. */
  requestId?: string;
}

export interface Recorded {
  /** Of the change's commands, in their order. */
  cseqs: number[];
  /** Each commanded locker's occupancy version after the change (appendCommand moves it). */
  occupancyVersions: Map<number, number>;
}

/** Appends the change's commands (cseq from the locker row) and notifications. */
export async function recordChange(tx: Tx, change: Change): Promise<Recorded> {
  const cseqs: number[] = [];
  const occupancyVersions = new Map<number, number>();
  for (const cmd of change.commands ?? []) {
    const appended = await appendCommand(tx, cmd.lockerId, cmd.body, change.at);
    cseqs.push(appended.cseq);
    occupancyVersions.set(cmd.lockerId, appended.occupancyVersion);
  }
  for (const n of change.notifications ?? []) {
    const notification = { marketplaceId: n.marketplaceId, orderId: n.orderId, kind: n.kind, body: JSON.stringify(n.body), requestId: change.requestId ?? null };
    await insertNotification(tx, notification, change.at);
  }
  return { cseqs, occupancyVersions };
}
