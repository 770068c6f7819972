/**
 * Which cell a parcel goes into at the locker: its reserved cell when that can be used, otherwise
 * the smallest free cell it fits (by volume, then id). Never a cell reserved for another order,
 * never a flagged cell, a cell with an operation under way, a cell on a board that does not
 * answer, or a cell holding another order's parcels.
 *
 * Unknown dimensions: a missing extent constrains nothing, so a parcel without dimensions gets the
 * smallest free cell; if it does not fit, the courier asks for a bigger one on the screen.
 */
import { boxFitsCell, cellVolume, type Box } from '../../../shared/src/geometry.js';
import type { ParcelIntent } from '../../../shared/src/protocol.js';
import type { Cell } from '../store/index.js';

export interface CellSituation {
  cell: Cell;
  /** Orders with parcels in the cell now. */
  holds: ReadonlySet<string>;
  /** Order a pending parcel has reserved the cell for. */
  reservedFor: string | undefined;
  /** An operation is under way on the cell. */
  busy: boolean;
  /** Its board answers. */
  online: boolean;
}

export interface CellRequest {
  orderId: string;
  parcel: ParcelIntent;
  depth: number;
  /** Cells not to offer again (their door failed, or the parcel did not fit). */
  exclude: ReadonlySet<number>;
  /** Only cells bigger than this volume (the parcel did not fit a cell of this size). */
  minVolumeExclusive?: number;
}

export type CellChoice = { cellId: number; reserved: boolean } | null;

/** Missing extents count as 1 mm: they put no constraint on the cell. */
export function boxOf(parcel: ParcelIntent): Box {
  const d = parcel.dimension;
  return { length: d?.length ?? 1, width: d?.width ?? 1, height: d?.height ?? 1 };
}

function usable(s: CellSituation, req: CellRequest): boolean {
  return s.cell.inLayout && s.cell.flags.length === 0 && !s.busy && s.online && !req.exclude.has(s.cell.id);
}

export function chooseCell(cells: readonly CellSituation[], req: CellRequest): CellChoice {
  const reservedId = req.parcel.state === 'pending' ? req.parcel.cellId : null;
  const reserved = reservedId === null ? undefined : cells.find((s) => s.cell.id === reservedId);
  if (
    reserved &&
    usable(reserved, req) &&
    (reserved.reservedFor === undefined || reserved.reservedFor === req.orderId) &&
    [...reserved.holds].every((o) => o === req.orderId) &&
    req.minVolumeExclusive === undefined
  ) {
    return { cellId: reserved.cell.id, reserved: true };
  }
  const box = boxOf(req.parcel);
  const space = (s: CellSituation) => ({ width: s.cell.width, height: s.cell.height, depth: req.depth });
  const candidates = cells
    .filter((s) => usable(s, req) && s.holds.size === 0 && s.reservedFor === undefined)
    .filter((s) => boxFitsCell(box, space(s)))
    .filter((s) => req.minVolumeExclusive === undefined || cellVolume(space(s)) > req.minVolumeExclusive)
    .sort((a, b) => cellVolume(space(a)) - cellVolume(space(b)) || a.cell.id - b.cell.id);
  const best = candidates[0];
  return best ? { cellId: best.cell.id, reserved: false } : null;
}
