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

/*
 * Several parcels in one cell: the stack model.
 *
 * Parcels of one order share a cell as a single stack along one axis of the cell (its width, its
 * height or the locker's depth). Each parcel is rotated on its own so that its cross-section fits
 * the cell's other two extents, choosing the rotation that takes the least room along the stack;
 * the stack fits when those extents add up to no more than the cell's extent along that axis.
 * The model is exact for what it accepts (stackPlacement() returns the positions: no overlap,
 * nothing outside the cell) and conservative otherwise: side-by-side arrangements that no single
 * stack expresses are not found. A subset of a stack that fits also fits, which allocation relies on.
 */

/** Axes of a cell: x runs along its width, y along its height, z along the locker's depth. */
export type CellAxis = 'width' | 'height' | 'depth';

/** Stack axes in the order they are tried; the first that fits is the one stackPlacement() uses. */
export const STACK_AXES: readonly CellAxis[] = ['depth', 'height', 'width'];

/** One box placed in a cell: its corner and its extents along x (width), y (height), z (depth). */
export interface PlacedBox {
  x: number;
  y: number;
  z: number;
  dx: number;
  dy: number;
  dz: number;
}

/** The two extents of a cell across the given stacking axis, and the extent along it. */
export function stackFrame(cell: CellSpace, axis: CellAxis): { across: [number, number]; along: number } {
  switch (axis) {
    case 'width':
      return { across: [cell.height, cell.depth], along: cell.width };
    case 'height':
      return { across: [cell.width, cell.depth], along: cell.height };
    case 'depth':
      return { across: [cell.width, cell.height], along: cell.depth };
  }
}

/** Which of the box's three extents goes along the stack, and how the other two lie across it. */
interface Orientation {
  along: number;
  first: number;
  second: number;
}

function bestOrientation(box: Box, across: readonly [number, number]): Orientation | null {
  const [p, q] = across;
  const sides = [box.length, box.width, box.height];
  let best: Orientation | null = null;
  for (let k = 0; k < 3; k++) {
    const along = sides[k]!;
    const u = sides[(k + 1) % 3]!;
    const v = sides[(k + 2) % 3]!;
    const candidate = u <= p && v <= q ? { along, first: u, second: v } : v <= p && u <= q ? { along, first: v, second: u } : null;
    if (candidate && (!best || candidate.along < best.along)) best = candidate;
  }
  return best;
}

/**
 * The least room along a stack that `box` takes when its cross-section must fit `across`
 * (either way round); Infinity when no rotation fits.
 */
export function minStackExtent(box: Box, across: readonly [number, number]): number {
  return bestOrientation(box, across)?.along ?? Infinity;
}

/**
 * Places the boxes as one stack (see the stack model above), in input order from the cell's
 * corner, on the first axis of STACK_AXES that holds them all; null when none does.
 */
export function stackPlacement(boxes: readonly Box[], cell: CellSpace): PlacedBox[] | null {
  for (const axis of STACK_AXES) {
    const { across, along } = stackFrame(cell, axis);
    const orientations = boxes.map((box) => bestOrientation(box, across));
    let total = 0;
    for (const o of orientations) total += o ? o.along : Infinity;
    if (total > along) continue;
    let offset = 0;
    return orientations.map((o) => {
      const { along: a, first, second } = o!;
      const start = offset;
      offset += a;
      switch (axis) {
        case 'width':
          return { x: start, y: 0, z: 0, dx: a, dy: first, dz: second };
        case 'height':
          return { x: 0, y: start, z: 0, dx: first, dy: a, dz: second };
        case 'depth':
          return { x: 0, y: 0, z: start, dx: first, dy: second, dz: a };
      }
    });
  }
  return null;
}

/** Whether the boxes fit the cell together as one stack; for one box this equals boxFitsCell(). */
export function boxesFitCell(boxes: readonly Box[], cell: CellSpace): boolean {
  return stackPlacement(boxes, cell) !== null;
}
