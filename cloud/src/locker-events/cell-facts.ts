/**
 * Cells in the cloud follow what the locker finds. A `cell.flags` event adds the flags the locker
 * raised to the cell (allocation then avoids it) and echoes the result back as a `cell.flags`
 * command: the agent keeps a flag it raised as its own until the cloud's list carries it, after
 * which an operator clearing it (operator API) clears it at the locker too. A `recovered` report
 * clears only what a locker raises itself (faulty, needs inventory); dirty and blocked stay with
 * the operator.
 */
import { CELL_FLAGS, CellFlag } from '../../../shared/src/enums.js';
import { recordChange } from '../outbox/record-change.js';
import { markFlagChanges } from '../repositories/cell-flag-marks.js';
import { findCell, saveCellFlags } from '../repositories/lockers.js';
import { recordAlert } from './alerts.js';
import type { EventContext, EventOf } from './context.js';

const RAISED_BY_LOCKER: readonly CellFlag[] = [CellFlag.Faulty, CellFlag.NeedsInventory];

/** The locker's own changes are marked as the locker's, with the reason it gave. */
async function setFlags(ctx: EventContext, cellId: number, before: readonly CellFlag[], flags: CellFlag[], reason: string): Promise<void> {
  await saveCellFlags(ctx.tx, ctx.locker.id, cellId, flags, ctx.now);
  await markFlagChanges(ctx.tx, ctx.locker.id, cellId, before, flags, { by: 'locker', reason, note: null }, ctx.now);
  await recordChange(ctx.tx, { at: ctx.now, commands: [{ lockerId: ctx.locker.id, body: { type: 'cell.flags', cellId, flags } }] });
}

export async function applyCellFlags(ctx: EventContext<EventOf<'cell.flags'>>): Promise<void> {
  const { event } = ctx;
  const cell = await findCell(ctx.tx, ctx.locker.id, event.cellId);
  if (!cell) {
    await recordAlert(ctx, { kind: 'fact.unknown_cell', severity: 'warning', cellId: event.cellId, detail: { type: event.type, flags: event.flags, reason: event.reason } });
    return;
  }
  const before = cell.flags;
  const keep = (f: CellFlag): boolean => before.includes(f) && (event.reason !== 'recovered' || !RAISED_BY_LOCKER.includes(f));
  const after = CELL_FLAGS.filter((f) => event.flags.includes(f) || keep(f));
  await setFlags(ctx, event.cellId, before, after, event.reason);
  await recordAlert(ctx, {
    kind: event.type,
    severity: event.reason === 'recovered' ? 'info' : 'warning',
    cellId: event.cellId,
    detail: { reason: event.reason, reported: event.flags, flags: after },
    clears: event.reason === 'recovered',
  });
}

/**
 * A technician looked into the cell (`cell.inventoried`): needs_inventory leaves it, marked as the
 * locker's change. Returns the flags left, or null when the cell is unknown.
 */
export async function clearNeedsInventory(ctx: EventContext, cellId: number, reason: string): Promise<CellFlag[] | null> {
  const cell = await findCell(ctx.tx, ctx.locker.id, cellId);
  if (!cell) return null;
  const after = cell.flags.filter((f) => f !== CellFlag.NeedsInventory);
  if (after.length !== cell.flags.length) await setFlags(ctx, cellId, cell.flags, after, reason);
  return after;
}

/** Whether any flag the locker raises itself is among `flags`. */
export const lockerRaised = (flags: readonly CellFlag[]): boolean => flags.some((f) => RAISED_BY_LOCKER.includes(f));

/**
 * Something the cloud cannot place is in the cell (a parcel of an unknown order, or of an order
 * at another locker): the cell needs an inventory before anything is allocated into it.
 */
export async function raiseNeedsInventory(ctx: EventContext, cellId: number): Promise<void> {
  const cell = await findCell(ctx.tx, ctx.locker.id, cellId);
  if (!cell || cell.flags.includes(CellFlag.NeedsInventory)) return;
  await setFlags(ctx, cellId, cell.flags, CELL_FLAGS.filter((f) => f === CellFlag.NeedsInventory || cell.flags.includes(f)), 'unplaced_parcel');
}
