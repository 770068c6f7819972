/**
 * Start-up: before anyone is served, every board is read and the journal of operations that a
 * crash or power cut interrupted is resolved against the doors as they are now:
 * - a load whose pulse never got confirmed and whose door is closed: nothing happened, dropped;
 * - any other interrupted load (door confirmed open, or open now): the parcel may or may not be
 *   inside, so no fact is invented: the cell is flagged needs_inventory (`cell.flags`, reason
 *   interrupted_operation) and the parcel stays loadable into another cell;
 * - a pick-up or return whose door is open now: the pulse worked and the parcels are within
 *   reach, so they are recorded taken (as a confirmed open is in normal operation);
 * - a pick-up or return whose door is closed (or unreadable): nothing is recorded, the cell is
 *   flagged needs_inventory, and the customer's code still opens it.
 * Every resolution commits its journal row, flags, facts and events in one transaction.
 */
import type { Clock } from '../clock.js';
import type { LockerStore } from '../store/index.js';
import type { DoorReading } from './doors.js';
import type { CellOperations } from './operations.js';

export function resolveInterrupted(store: LockerStore, ops: CellOperations, reading: DoorReading, clock: Clock): number {
  const entries = store.journal.all();
  for (const e of entries) {
    const cell = store.cells.get(e.cellId);
    const seen = cell ? reading.doors.find((d) => d.address.bus === cell.bus && d.address.board === cell.board && d.address.lock === cell.lock) : undefined;
    const door = seen === undefined ? 'unknown' : seen.closed ? 'closed' : 'open';
    store.tx(() => {
      store.journal.finish(e.id);
      if (!cell) return;
      if (door === 'open') store.cells.markDoorExpected(cell.id, clock.now());
      if (e.kind === 'load') {
        const nothingHappened = (e.stage === 'opening' && door === 'closed') || e.stage === 'aborted';
        if (!nothingHappened) ops.raiseFlag(cell.id, 'needs_inventory', 'interrupted_operation');
        return;
      }
      if (door === 'open') ops.recordTaken(cell.id, e.detail.parcels, e.kind === 'return' ? e.detail.grantId : null);
      else ops.raiseFlag(cell.id, 'needs_inventory', 'interrupted_operation');
    });
  }
  return entries.length;
}
