/**
 * Operator `cell.open` commands at the locker. A command that causes a physical action is judged by
 * its age on the locker's own clock, twice: when it is applied (it may have queued for long in the
 * cloud or the broker) and again right before the pulse (it may have waited at the locker, say
 * across a restart). Accepted ones wait in `meta` (key `pending_cell_opens`) until the door
 * supervisor's next round carries them out; each ends in exactly one `cell.open` event, committed
 * with its removal from the list.
 */
import { CELL_OPEN_MAX_AGE_MS } from '../../../shared/src/protocol.js';
import type { LockerStore } from '../store/index.js';

export interface PendingCellOpen {
  cseq: number;
  cellId: number;
  notAfter: number;
}

export type CellOpenRefusal = 'stale' | 'clock_skew';

const KEY = 'pending_cell_opens';

/**
 * Past `notAfter` is stale. A `notAfter` further ahead than the longest age the cloud grants means
 * this clock is far behind the cloud's (or the command is malformed): age cannot be judged, refused.
 */
export function judgeCellOpenAge(notAfter: number, now: number): CellOpenRefusal | null {
  if (now > notAfter) return 'stale';
  if (notAfter - now > CELL_OPEN_MAX_AGE_MS) return 'clock_skew';
  return null;
}

export function pendingCellOpens(store: LockerStore): PendingCellOpen[] {
  const raw = store.meta.get(KEY);
  return raw === null ? [] : (JSON.parse(raw) as PendingCellOpen[]);
}

/** Inside a transaction: the open is done with (carried out or refused). */
export function dropPendingCellOpen(store: LockerStore, cseq: number): void {
  store.meta.set(KEY, JSON.stringify(pendingCellOpens(store).filter((p) => p.cseq !== cseq)));
}

/** Inside applyCommand's transaction: a stale command is refused and reported, a fresh one queued. */
export function acceptCellOpen(store: LockerStore, open: PendingCellOpen): void {
  const refusal = judgeCellOpenAge(open.notAfter, store.clock.now());
  if (refusal) {
    store.outbox.emit({ type: 'cell.open', cseq: open.cseq, cellId: open.cellId, outcome: refusal });
    return;
  }
  store.meta.set(KEY, JSON.stringify([...pendingCellOpens(store), open]));
}
