import { minStackExtent, STACK_AXES, stackFrame, type Box, type CellSpace } from '../../../shared/src/geometry.js';

/**
 * The stack model of shared/src/geometry.ts precomputed for one cell size, so that the search can
 * test any set of parcels by adding numbers: per stack axis, the cell's extent along it and each
 * parcel's least extent along it (Infinity when its cross-section cannot fit).
 */
export interface StackFit {
  along: number[];
  extents: number[][];
  /** Parcels that may only have a cell to themselves. */
  alone: readonly boolean[];
}

export function stackFit(items: readonly Box[], alone: readonly boolean[], space: CellSpace): StackFit {
  const along: number[] = [];
  const extents: number[][] = [];
  for (const axis of STACK_AXES) {
    const frame = stackFrame(space, axis);
    along.push(frame.along);
    extents.push(items.map((box) => minStackExtent(box, frame.across[0], frame.across[1])));
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
 * Per size class, fits[mask] = 1 when the items whose bits are set in `mask` fit one cell of it
 * together, for all 2^n masks. Each entry extends the one without its lowest bit, so a table costs
 * O(2^n); a mask whose smaller part does not fit is skipped (nothing containing it fits either).
 */
export function fitTables(fits: readonly StackFit[], n: number): Uint8Array[] {
  const size = 1 << n;
  // Stack lengths per axis, shared by all classes: an entry is written before it is read, and
  // entries left from another class are only under masks that are skipped.
  const s0 = new Float64Array(size);
  const s1 = new Float64Array(size);
  const s2 = new Float64Array(size);
  return fits.map((fit) => {
    const table = new Uint8Array(size);
    // The three stack axes unrolled: this loop is most of the exact search's set-up.
    const [a0, a1, a2] = fit.along as [number, number, number];
    const [e0, e1, e2] = fit.extents as [number[], number[], number[]];
    let aloneMask = 0;
    for (let i = 0; i < n; i++) if (fit.alone[i]) aloneMask |= 1 << i;
    table[0] = 1;
    for (let mask = 1; mask < size; mask++) {
      const low = mask & -mask;
      const rest = mask ^ low;
      if (!table[rest] || (rest !== 0 && (mask & aloneMask) !== 0)) continue;
      const item = 31 - Math.clz32(low);
      const t0 = (s0[mask] = s0[rest]! + e0[item]!);
      const t1 = (s1[mask] = s1[rest]! + e1[item]!);
      const t2 = (s2[mask] = s2[rest]! + e2[item]!);
      if (t0 <= a0 || t1 <= a1 || t2 <= a2) table[mask] = 1;
    }
    return table;
  });
}
