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

/** `along` if the other two extents fit the cross-section p x q either way round, else Infinity. */
function alongIfCrossFits(along: number, u: number, v: number, p: number, q: number): number {
  return (u <= p && v <= q) || (v <= p && u <= q) ? along : Infinity;
}

/**
 * The least room along a stack that `box` takes when its cross-section must fit p x q (either
 * way round); Infinity when no rotation fits. Allocates nothing: the search calls it often.
 * For one box, `minStackExtent(box, w, h) <= d` is the same test as boxFitsCell().
 */
export function minStackExtent(box: Box, p: number, q: number): number {
  const { length: l, width: w, height: h } = box;
  return Math.min(alongIfCrossFits(l, w, h, p, q), alongIfCrossFits(w, h, l, p, q), alongIfCrossFits(h, l, w, p, q));
}

function bestOrientation(box: Box, [p, q]: readonly [number, number]): Orientation | null {
  const along = minStackExtent(box, p, q);
  if (along === Infinity) return null;
  // The two extents left once `along` is taken out (if two extents are equal, either one).
  const sides = [box.length, box.width, box.height];
  sides.splice(sides.indexOf(along), 1);
  const [u, v] = sides as [number, number];
  return u <= p && v <= q ? { along, first: u, second: v } : { along, first: v, second: u };
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
