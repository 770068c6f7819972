import { minStackExtent, STACK_AXES, stackFrame, type Box, type CellSpace } from '../../../shared/src/geometry.js';

/**
 * The stack model of shared/src/geometry.ts precomputed for one cell size, so that the search can
 * test any set of parcels by adding numbers: per stack axis, the cell's extent along it and each
 * parcel's least extent along it (Infinity when its cross-section cannot fit).
 */
export interface StackFit {
  along: number[];
  extents: Float64Array[];
  /** Parcels that may only have a cell to themselves. */
  alone: readonly boolean[];
}

export function stackFit(items: readonly Box[], alone: readonly boolean[], space: CellSpace): StackFit {
  const along: number[] = [];
  const extents: Float64Array[] = [];
  for (const axis of STACK_AXES) {
    const frame = stackFrame(space, axis);
    along.push(frame.along);
    extents.push(Float64Array.from(items, (box) => minStackExtent(box, frame.across)));
  }
  return { along, extents, alone };
}

/** Whether the parcels `members` (indexes into the items) fit one cell together. */
export function membersFit(fit: StackFit, members: readonly number[]): boolean {
  if (members.length > 1 && members.some((m) => fit.alone[m])) return false;
  return fit.along.some((length, axis) => {
    let total = 0;
    for (const m of members) total += fit.extents[axis]![m]!;
    return total <= length;
  });
}

/**
 * fits[mask] = 1 when the items whose bits are set in `mask` fit one cell together, for all 2^n
 * masks; each entry extends the one without its lowest bit, so the table costs O(2^n).
 */
export function fitTable(fit: StackFit, n: number): Uint8Array {
  const size = 1 << n;
  const fits = new Uint8Array(size);
  const sums = fit.along.map(() => new Float64Array(size));
  let aloneMask = 0;
  for (let i = 0; i < n; i++) if (fit.alone[i]) aloneMask |= 1 << i;
  fits[0] = 1;
  for (let mask = 1; mask < size; mask++) {
    const low = mask & -mask;
    const item = 31 - Math.clz32(low);
    const shared = mask !== low;
    let ok = false;
    for (let axis = 0; axis < sums.length; axis++) {
      const total = sums[axis]![mask ^ low]! + fit.extents[axis]![item]!;
      sums[axis]![mask] = total;
      if (total <= fit.along[axis]!) ok = true;
    }
    fits[mask] = ok && !(shared && (mask & aloneMask) !== 0) ? 1 : 0;
  }
  return fits;
}
