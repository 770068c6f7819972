/**
 * Who set each of a cell's flags, why and when (cell_flag_marks). A mark is written when its flag
 * goes from clear to set and removed when it is cleared, in the transaction that changes the
 * flags, so the marks of a cell are always those of its current flags. A flag set before marks
 * were kept, or by the fleet file, has none.
 */
import type { CellFlag } from '../../../shared/src/enums.js';
import type { Tx } from '../db/transaction.js';

/** Who set a flag: an operator's name, or `locker` when the locker raised it. */
export interface FlagSetter {
  by: string;
  reason: string | null;
  note: string | null;
}

export interface CellFlagMark extends FlagSetter {
  cellId: number;
  flag: string;
  at: number;
}

/** Marks the flags `after` sets that `before` did not have, and drops the marks of those it clears. */
export async function markFlagChanges(db: Tx, lockerId: number, cellId: number, before: readonly CellFlag[], after: readonly CellFlag[], setter: FlagSetter, at: number): Promise<void> {
  const cleared = before.filter((f) => !after.includes(f));
  const raised = after.filter((f) => !before.includes(f));
  if (cleared.length > 0) {
    await db.deleteFrom('cell_flag_marks').where('locker_id', '=', lockerId).where('cell_id', '=', cellId).where('flag', 'in', cleared).execute();
  }
  if (raised.length > 0) {
    await db
      .insertInto('cell_flag_marks')
      .values(raised.map((flag) => ({ locker_id: lockerId, cell_id: cellId, flag, set_at: at, set_by: setter.by, reason: setter.reason, note: setter.note })))
      .onConflict((oc) => oc.columns(['locker_id', 'cell_id', 'flag']).doUpdateSet((eb) => ({ set_at: eb.ref('excluded.set_at'), set_by: eb.ref('excluded.set_by'), reason: eb.ref('excluded.reason'), note: eb.ref('excluded.note') })))
      .execute();
  }
}

/** The locker's marks, by cell then flag. */
export async function flagMarksOf(db: Tx, lockerId: number): Promise<CellFlagMark[]> {
  const rows = await db.selectFrom('cell_flag_marks').selectAll().where('locker_id', '=', lockerId).orderBy('cell_id').orderBy('flag').execute();
  return rows.map((r) => ({ cellId: Number(r.cell_id), flag: r.flag, at: Number(r.set_at), by: r.set_by, reason: r.reason, note: r.note }));
}

/** The marks of these cells (locker id, cell id), in one query. */
export async function flagMarksOfCells(db: Tx, cells: readonly { lockerId: number; cellId: number }[]): Promise<(CellFlagMark & { lockerId: number })[]> {
  if (cells.length === 0) return [];
  const rows = await db
    .selectFrom('cell_flag_marks')
    .selectAll()
    .where((eb) => eb(eb.refTuple('locker_id', 'cell_id'), 'in', cells.map((c) => eb.tuple(c.lockerId, c.cellId))))
    .orderBy('locker_id')
    .orderBy('cell_id')
    .orderBy('flag')
    .execute();
  return rows.map((r) => ({ lockerId: Number(r.locker_id), cellId: Number(r.cell_id), flag: r.flag, at: Number(r.set_at), by: r.set_by, reason: r.reason, note: r.note }));
}
