/**
 * The one domain-event path: every change of an order records, in the caller's transaction, the
 * commands it sends to lockers (numbered per locker, `cseq`) and the notifications it owes the
 * marketplace. Sync and notification delivery only ever send what was recorded here, so a change
 * and its consequences commit or roll back together.
 *
 * The caller must hold the locker rows (lockerTransaction with every locker in `commands`).
 */
import { randomUUID } from 'node:crypto';
import type { CommandBody } from '../../../shared/src/protocol.js';
import type { Tx } from '../db/transaction.js';

/** Bodies of the three outbound operations of the spec, field for field. */
export interface OrderStatusBody {
  postamat_id?: string;
  cell_id?: number;
  id: string;
  barcode: string;
  event_id: string;
  status: string;
  dt: string;
}
export interface UserAccessCodeBody {
  id: string;
  postamat_id: string;
  access_code: string;
}
export interface ExpirationDateChangesBody {
  id: string;
  event_dt: string;
  expire_dt: string;
}

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
}

/** Appends the change's commands (cseq from the locker row) and notifications; returns the cseqs. */
export async function recordChange(tx: Tx, change: Change): Promise<number[]> {
  const cseqs: number[] = [];
  for (const cmd of change.commands ?? []) {
    const locker = await tx
      .updateTable('lockers')
      .set((eb) => ({ next_cseq: eb('next_cseq', '+', 1) }))
      .where('id', '=', cmd.lockerId)
      .returning('next_cseq')
      .executeTakeFirstOrThrow();
    const cseq = locker.next_cseq - 1;
    await tx
      .insertInto('locker_commands')
      .values({ locker_id: cmd.lockerId, cseq, type: cmd.body.type, body: JSON.stringify(cmd.body), created_at: change.at })
      .execute();
    cseqs.push(cseq);
  }
  for (const n of change.notifications ?? []) {
    await tx
      .insertInto('notifications')
      .values({
        uid: randomUUID(),
        marketplace_id: n.marketplaceId,
        order_id: n.orderId,
        kind: n.kind,
        body: JSON.stringify(n.body),
        created_at: change.at,
        next_attempt_at: change.at,
      })
      .execute();
  }
  return cseqs;
}
