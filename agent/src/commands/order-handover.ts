/**
 * Operator `order.handover` commands at the locker: open the cells holding an order's parcels for
 * the customer standing at it. Judged by age like `cell.open` (cell-open.ts), on apply and again
 * right before the doors open. Accepted ones wait in `meta` (key `pending_handovers`) until the door
 * supervisor's next round carries them out (locker/handovers.ts).
 *
 * Carried out once: the entry is marked started in the transaction that precedes the first pulse,
 * and an entry found started (the agent stopped mid-way) ends as `interrupted` without opening
 * anything again; the pick-ups it began are resolved at start-up like any interrupted pick-up.
 */
import type { LockerStore } from '../store/index.js';
import { judgeCellOpenAge } from './cell-open.js';

export interface PendingHandover {
  cseq: number;
  orderId: string;
  notAfter: number;
  started?: true;
}

const KEY = 'pending_handovers';

export function pendingHandovers(store: LockerStore): PendingHandover[] {
  const raw = store.meta.get(KEY);
  return raw === null ? [] : (JSON.parse(raw) as PendingHandover[]);
}

function save(store: LockerStore, list: PendingHandover[]): void {
  store.meta.set(KEY, JSON.stringify(list));
}

/** Inside a transaction: the doors are about to open; a restart from here on opens nothing again. */
export function markHandoverStarted(store: LockerStore, cseq: number): void {
  save(store, pendingHandovers(store).map((p) => (p.cseq === cseq ? { ...p, started: true as const } : p)));
}

/** Inside a transaction: the handover is done with (carried out or refused). */
export function dropPendingHandover(store: LockerStore, cseq: number): void {
  save(store, pendingHandovers(store).filter((p) => p.cseq !== cseq));
}

/** Inside applyCommand's transaction: a stale command is refused and reported, a fresh one queued. */
export function acceptHandover(store: LockerStore, handover: PendingHandover): void {
  const refusal = judgeCellOpenAge(handover.notAfter, store.clock.now());
  if (refusal) {
    store.outbox.emit({ type: 'order.handover', cseq: handover.cseq, orderId: handover.orderId, outcome: refusal, opened: [], failed: [] });
    return;
  }
  save(store, [...pendingHandovers(store), handover]);
}
