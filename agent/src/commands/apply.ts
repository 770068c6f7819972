/**
 * Applies the cloud's commands to the locker's store: strictly in cseq order, each once; the
 * change and the new appliedCseq commit in one transaction.
 *
 * Commands carry intent; the store keeps the locker's physical facts apart, and no command ever
 * moves, removes or "un-loads" a parcel the locker has in a cell. How a stale intent meets a fact
 * (docs/agent.md, "Intent and facts"):
 * - order.upsert replaces the order's intent whole; a parcel already in a cell stays in that cell
 *   whatever the intent says (pending, another cell, cancelled, received);
 * - an in-cell parcel whose intent is cancelled or awaiting return, or whose order is in state 6/7
 *   or was removed, is collectable by a courier of the order's marketplace;
 * - a parcel the locker already handed out is never offered again, whatever the intent says;
 * - order.remove (and a snapshot without the order) forgets the order unless parcels of it are
 *   still in cells: then it is kept, marked removed, its pick-up code dropped, until collected;
 * - cell.flags / locker.config replace the cloud's flags of a cell; flags the locker raised itself
 *   stay in force until the cloud's flags carry them, so a command issued before the cloud heard
 *   of a fault does not clear it;
 * - locker.config drops cells that left the layout unless a parcel is still in them;
 * - cell.open and order.handover (physical actions) are refused when stale by the locker's clock
 *   (cell-open.ts, order-handover.ts);
 * - service.code keeps a technician's code hash until its end, cut to SERVICE_CODE_MAX_TTL_MS
 *   from the locker's clock (a code never opens the service menu for longer, whatever the clocks).
 */
import { SERVICE_CODE_MAX_TTL_MS, type Command, type Snapshot } from '../../../shared/src/protocol.js';
import { traceparentOf } from '../../../shared/src/tracing.js';
import type { LockerStore } from '../store/index.js';
import { acceptCellOpen } from './cell-open.js';
import { acceptHandover } from './order-handover.js';

export type ApplyResult =
  | { status: 'applied'; appliedCseq: number }
  /** cseq <= appliedCseq: already applied, ignored (the caller re-acks). */
  | { status: 'duplicate'; appliedCseq: number }
  /** cseq > appliedCseq + 1: a command is missing; nothing applied, the sender resends from the ack. */
  | { status: 'gap'; appliedCseq: number };

export function applyCommand(store: LockerStore, command: Command): ApplyResult {
  return store.tx(() => {
    const applied = store.appliedCseq();
    if (command.cseq <= applied) return { status: 'duplicate', appliedCseq: applied };
    if (command.cseq > applied + 1) return { status: 'gap', appliedCseq: applied };
    applyBody(store, command);
    store.setAppliedCseq(command.cseq);
    return { status: 'applied', appliedCseq: command.cseq };
  });
}

function applyBody(store: LockerStore, body: Command): void {
  switch (body.type) {
    case 'locker.config': {
      const { cells, ...settings } = body.config;
      store.setSettings(settings);
      store.cells.setLayout(cells);
      return;
    }
    case 'order.upsert':
      // Inside the command's span (sync/down-stream.ts): the courier's load later joins its trace.
      store.orders.upsert(body.order, traceparentOf());
      return;
    case 'order.remove':
      store.orders.remove(body.orderId);
      return;
    case 'courier.grant':
      store.grants.upsert(body.grant);
      return;
    case 'courier.revoke':
      store.grants.revoke(body.grantId);
      return;
    case 'cell.flags':
      // A cell the layout does not have yet: the next locker.config carries its flags anyway.
      store.cells.setCloudFlags(body.cellId, body.flags);
      return;
    case 'cell.open':
      // Judged by age now, on the locker's clock; the door opens after the commit (locker/service-opens.ts).
      acceptCellOpen(store, { cseq: body.cseq, cellId: body.cellId, notAfter: body.notAfter });
      return;
    case 'order.handover':
      // Judged by age now; the doors open after the commit (locker/handovers.ts).
      acceptHandover(store, { cseq: body.cseq, orderId: body.orderId, notAfter: body.notAfter });
      return;
    case 'service.code':
      store.serviceCodes.upsert({ codeId: body.codeId, codeHash: body.codeHash, validUntil: Math.min(body.validUntil, store.clock.now() + SERVICE_CODE_MAX_TTL_MS) });
      return;
  }
}

export type SnapshotResult = { status: 'applied'; appliedCseq: number } | { status: 'stale'; appliedCseq: number };

/**
 * Replaces the whole intent (layout, orders, grants) with the snapshot's and sets appliedCseq to
 * its cseq; physical facts and the locker's own flags stay. A snapshot older than what is already
 * applied is ignored.
 */
export function applySnapshot(store: LockerStore, snapshot: Snapshot): SnapshotResult {
  return store.tx(() => {
    const applied = store.appliedCseq();
    if (snapshot.cseq < applied) return { status: 'stale', appliedCseq: applied };
    const { cells, ...settings } = snapshot.config;
    store.setSettings(settings);
    store.cells.setLayout(cells);
    const keep = new Set(snapshot.orders.map((o) => o.orderId));
    for (const id of store.orders.ids()) if (!keep.has(id)) store.orders.remove(id);
    for (const order of snapshot.orders) store.orders.upsert(order);
    store.grants.clear();
    for (const grant of snapshot.grants) store.grants.upsert(grant);
    store.setAppliedCseq(snapshot.cseq);
    return { status: 'applied', appliedCseq: snapshot.cseq };
  });
}
