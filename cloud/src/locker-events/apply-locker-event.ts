/**
 * The cloud's reaction to one physical fact of a locker, inside the transaction in which the
 * locker link records the event in its inbox (the link's `ApplyEvent`). The link makes each event
 * arrive once; the handlers also tolerate facts that repeat a state. A fact is never rejected:
 * it changes the orders and cells it concerns, or, where it fits no intent, is kept for operators
 * (locker_alerts) and the marketplace is told what it can be told.
 */
import type { LockerEvent } from '../../../shared/src/protocol.js';
import type { Tx } from '../db/transaction.js';
import { lockerById, type Locker } from '../repositories/lockers.js';
import type { ApplyEvent, EventBatch } from '../sync/up-stream.js';
import { recordAlert } from './alerts.js';
import { applyCellFlags } from './cell-facts.js';
import { applyCellInventoried } from './cell-inventoried.js';
import type { EventContext, LockerEventDeps } from './context.js';
import { applyParcelLoaded } from './parcel-loaded.js';
import { applyParcelTaken } from './parcel-taken.js';

export type { LockerEventDeps } from './context.js';

const DOOR_ALARM_SEVERITY = { left_open: 'warning', unconfirmed: 'warning', opened_unexpectedly: 'critical', closed: 'info' } as const;

async function dispatch(ctx: EventContext): Promise<void> {
  const { event } = ctx;
  switch (event.type) {
    case 'parcel.loaded':
      return applyParcelLoaded({ ...ctx, event });
    case 'parcel.received':
    case 'parcel.returned':
      return applyParcelTaken({ ...ctx, event });
    case 'cell.flags':
      return applyCellFlags({ ...ctx, event });
    case 'door.alarm':
      // One alert per door whatever the alarm; the door closing resolves it.
      return recordAlert(ctx, {
        kind: event.type,
        severity: DOOR_ALARM_SEVERITY[event.kind],
        cellId: event.cellId,
        detail: { kind: event.kind },
        clears: event.kind === 'closed',
      });
    case 'board.state':
      // A board offline takes every cell on it out of use; back online resolves it.
      return recordAlert(ctx, {
        kind: event.type,
        severity: event.online ? 'info' : 'critical',
        dedup: `${event.bus}/${event.board}`,
        detail: { bus: event.bus, board: event.board, online: event.online },
        clears: event.online,
      });
    case 'code.attempt':
      return recordAlert(ctx, { kind: event.type, severity: 'info', detail: { kind: event.kind, ok: event.ok } });
    case 'cell.open':
      return recordAlert(ctx, {
        kind: event.type,
        severity: event.outcome === 'opened' ? 'info' : event.outcome === 'jammed' ? 'critical' : 'warning',
        cellId: event.cellId,
        detail: { cseq: event.cseq, outcome: event.outcome },
        clears: event.outcome === 'opened',
      });
    case 'order.handover':
      // One per order: a later handover that opened resolves an earlier one that did not.
      return recordAlert(ctx, {
        kind: event.type,
        severity: event.outcome === 'opened' ? 'info' : 'warning',
        orderId: event.orderId,
        dedup: event.orderId,
        detail: { cseq: event.cseq, outcome: event.outcome, opened: event.opened, failed: event.failed },
        clears: event.outcome === 'opened',
      });
    case 'keypad.alarm':
      return recordAlert(ctx, { kind: event.type, severity: 'warning', dedup: event.kind, detail: { kind: event.kind, failuresToday: event.failuresToday } });
    case 'cell.inventoried':
      return applyCellInventoried({ ...ctx, event });
    case 'service.attempt':
      return recordAlert(ctx, { kind: event.type, severity: 'info', detail: { outcome: event.outcome, codeId: event.codeId } });
    case 'service.alarm':
      return recordAlert(ctx, { kind: event.type, severity: 'warning', detail: { failuresToday: event.failuresToday } });
    case 'barcode.ambiguous':
      // Operators look into why one barcode names several loadable orders of a courier's marketplaces.
      return recordAlert(ctx, { kind: event.type, severity: 'warning', detail: { orderIds: event.orderIds, grantId: event.grantId } });
  }
}

/** The locker link's ApplyEvent for the domain: `applyLockerEvent(tx, lockerId, event)`. */
export function createLockerEventApplier(deps: LockerEventDeps): ApplyEvent {
  const log = deps.logger.child({ part: 'locker-events' });
  // The locker row, read once per batch: nothing in a batch's transaction changes it.
  const lockers = new WeakMap<EventBatch, Locker>();
  return async function applyLockerEvent(tx: Tx, lockerId: number, event: LockerEvent, batch: EventBatch) {
    let locker = lockers.get(batch);
    if (locker?.id !== lockerId) lockers.set(batch, (locker = await lockerById(tx, lockerId)));
    const ctx: EventContext = { tx, batch, locker, event, now: deps.clock.now(), deps, log, commandsFor: new Set(), live: [] };
    await dispatch(ctx);
    ctx.live.unshift({ type: 'locker', lockerId, fact: event.type, ...('cellId' in event ? { cellId: event.cellId } : {}) });
    const feed = deps.signals?.live;
    return {
      ...(ctx.commandsFor.size > 0 ? { commandsFor: [...ctx.commandsFor] } : {}),
      // Counted and told once committed: a batch redone after a failure counts each event once.
      afterCommit: () => {
        deps.metrics?.lockerEvents.applied(event.type);
        if (feed) ctx.live.forEach((m) => feed.publish(m));
      },
    };
  };
}
