/**
 * Carries out the operator `cell.open` commands the locker accepted (agent/src/commands/cell-open.ts),
 * one at a time, on the door supervisor's rounds. Each is judged by age again right before its
 * pulse, and ends in one `cell.open` event committed with its removal from the pending list.
 */
import type { Logger } from 'pino';
import type { EventBody } from '../../../shared/src/protocol.js';
import { dropPendingCellOpen, judgeCellOpenAge, pendingCellOpens, type PendingCellOpen } from '../commands/index.js';
import type { Clock } from '../clock.js';
import type { LockerStore } from '../store/index.js';
import { DoorRoundWork } from './door-round-work.js';
import type { DoorSupervisor } from './doors.js';
import type { CellOperations } from './operations.js';

type Outcome = Extract<EventBody, { type: 'cell.open' }>['outcome'];

export class ServiceOpens extends DoorRoundWork {
  constructor(
    private readonly store: LockerStore,
    private readonly ops: CellOperations,
    doors: DoorSupervisor,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    super(doors, logger, 'operator cell open failed');
  }

  protected async drain(): Promise<void> {
    for (const open of pendingCellOpens(this.store)) {
      if (!this.started) return;
      await this.carryOut(open);
    }
  }

  private async carryOut(open: PendingCellOpen): Promise<void> {
    const { store } = this;
    const finish = (outcome: Outcome): void => {
      dropPendingCellOpen(store, open.cseq);
      store.outbox.emit({ type: 'cell.open', cseq: open.cseq, cellId: open.cellId, outcome });
      this.logger.info({ cseq: open.cseq, cellId: open.cellId, outcome }, 'operator cell open');
    };
    const refusal = judgeCellOpenAge(open.notAfter, this.clock.now());
    const cell = store.cells.get(open.cellId);
    if (refusal || !cell || store.journal.forCell(cell.id).length > 0) {
      store.tx(() => finish(refusal ?? (cell ? 'busy' : 'unknown_cell')));
      return;
    }
    await this.ops.openForService(cell, finish);
  }
}
