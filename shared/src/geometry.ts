/**
 * Physical fit of parcels into cells, shared by the cloud's allocation and the agent's on-the-spot
 * cell choice, so both sides agree on what fits. All sizes are integer millimetres.
 */

/** A box with its three extents; order carries no meaning (the parcel may be rotated). */
export interface Box {
  length: number;
  width: number;
  height: number;
}

/** The inner space of a cell: its front opening (width x height) and the locker's depth. */
export interface CellSpace {
  width: number;
  height: number;
  depth: number;
}

function sortedDesc(a: number, b: number, c: number): [number, number, number] {
  const s = [a, b, c].sort((x, y) => y - x);
  return [s[0]!, s[1]!, s[2]!];
}

/** A box fits a cell in some rotation iff its sorted extents fit the cell's sorted extents. */
export function boxFitsCell(box: Box, cell: CellSpace): boolean {
  const [b0, b1, b2] = sortedDesc(box.length, box.width, box.height);
  const [c0, c1, c2] = sortedDesc(cell.width, cell.height, cell.depth);
  return b0 <= c0 && b1 <= c1 && b2 <= c2;
}

/** Cell volume in cubic millimetres (used to prefer smaller cells). */
export function cellVolume(cell: CellSpace): number {
  return cell.width * cell.height * cell.depth;
}
