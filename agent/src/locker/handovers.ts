/**
 * Carries out the operator `order.handover` commands the locker accepted
 * (agent/src/commands/order-handover.ts), one at a time, on the door supervisor's rounds: the cells
 * holding the order's parcels for the customer open exactly as for the customer's code
 * (CellOperations.openForTaking: each parcel counts as received once its door is confirmed open,
 * and the door's close is an expected one). Each ends in one `order.handover` event committed with
 * its removal from the pending list.
 */
import type { Logger } from 'pino';
import type { EventBody } from '../../../shared/src/protocol.js';
import { dropPendingHandover, judgeCellOpenAge, markHandoverStarted, pendingHandovers, type PendingHandover } from '../commands/index.js';
import type { Clock } from '../clock.js';
import type { LockerStore } from '../store/index.js';
import { DoorRoundWork } from './door-round-work.js';
import type { DoorSupervisor } from './doors.js';
import type { CellOperations } from './operations.js';
import { pickupFor } from './rules.js';

type Outcome = Extract<EventBody, { type: 'order.handover' }>['outcome'];

export class Handovers extends DoorRoundWork {
  constructor(
    private readonly store: LockerStore,
    private readonly ops: CellOperations,
    doors: DoorSupervisor,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    super(doors, logger, 'operator handover failed');
  }

  protected async drain(): Promise<void> {
    for (const handover of pendingHandovers(this.store)) {
      if (!this.started) return;
      await this.carryOut(handover);
    }
  }

  private finish(h: PendingHandover, outcome: Outcome, opened: number[] = [], failed: number[] = []): void {
    const { store } = this;
    store.tx(() => {
      dropPendingHandover(store, h.cseq);
      store.outbox.emit({ type: 'order.handover', cseq: h.cseq, orderId: h.orderId, outcome, opened, failed });
    });
    this.logger.info({ cseq: h.cseq, orderId: h.orderId, outcome, opened, failed }, 'operator handover');
  }

  private async carryOut(h: PendingHandover): Promise<void> {
    const { store } = this;
    // Started before a restart: the pick-ups it began were resolved at start-up; nothing opens twice.
    if (h.started) return this.finish(h, 'interrupted');
    const refusal = judgeCellOpenAge(h.notAfter, this.clock.now());
    if (refusal) return this.finish(h, refusal);
    const order = store.orders.get(h.orderId);
    const cells = order ? pickupFor(store, order) : [];
    if (cells.length === 0) return this.finish(h, 'nothing_to_hand_over');
    if (cells.some((c) => store.journal.forCell(c.cellId).length > 0)) return this.finish(h, 'busy');
    store.tx(() => markHandoverStarted(store, h.cseq));
    const opened: number[] = [];
    const failed: number[] = [];
    for (const c of cells) {
      const cell = store.cells.get(c.cellId);
      const r = cell ? await this.ops.openForTaking(cell, c.parcels, null) : { ok: false };
      (r.ok ? opened : failed).push(c.cellId);
    }
    return this.finish(h, failed.length === 0 ? 'opened' : opened.length === 0 ? 'door_fault' : 'partly_opened', opened, failed);
  }
}
