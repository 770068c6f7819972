/** Operators set or clear cell flags; the locker learns it through a `cell.flags` command. */
import { CELL_FLAGS, type CellFlag } from '../../../shared/src/enums.js';
import { lockerTransaction } from '../db/transaction.js';
import { invalidRequest } from '../errors.js';
import { recordChange } from '../outbox/record-change.js';
import { markFlagChanges } from '../repositories/cell-flag-marks.js';
import { findCell, saveCellFlags } from '../repositories/lockers.js';
import type { ServiceDeps } from '../services.js';
import { type Actor, audit, targets } from './audit.js';

export type FlagChanges = Partial<Record<CellFlag, boolean>>;

export interface CellFlagsAnswer {
  postamatId: number;
  cellId: number;
  flags: CellFlag[];
}

/**
 * Sets and clears flags (blocking, unblocking, inspection done); a change is audited in its
 * transaction and marks the flags it sets with who, why and when.
 */
export async function setCellFlags(deps: ServiceDeps, lockerId: number, cellId: number, changes: FlagChanges, actor: Actor): Promise<CellFlagsAnswer> {
  const outcome = await lockerTransaction(deps.cdb, [lockerId], async (tx) => {
    const cell = await findCell(tx, lockerId, cellId);
    if (!cell) throw invalidRequest({ ru: `ячейка ${cellId} постамата ${lockerId} не найдена`, en: `cell ${cellId} of postamat ${lockerId} not found` });
    const before = cell.flags;
    const after = CELL_FLAGS.filter((f) => changes[f] ?? before.includes(f));
    if (after.join() === before.join()) return { flags: after, changed: false };
    const now = deps.clock.now();
    await saveCellFlags(tx, lockerId, cellId, after, now);
    await markFlagChanges(tx, lockerId, cellId, before, after, { by: actor.operator, reason: actor.reason, note: actor.note ?? null }, now);
    await recordChange(tx, { at: now, commands: [{ lockerId, body: { type: 'cell.flags', cellId, flags: after } }] });
    await audit(tx, actor, now, 'cell.flags', targets.cell(lockerId, cellId), { before, after }, { lockerId });
    return { flags: after, changed: true };
  });
  if (outcome.changed) {
    deps.signals.commandsRecorded([lockerId]);
    deps.signals.live.publish({ type: 'locker', lockerId, cellId, fact: 'cell.flags' });
  }
  return { postamatId: lockerId, cellId, flags: outcome.flags };
}
