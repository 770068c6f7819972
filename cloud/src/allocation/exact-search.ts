import type { ClassStock, Group } from './group.js';

/**
 * Exact search for the best allocation of at most ~16 parcels.
 *
 * State: the parcels still to decide (a bit mask R) and the free cells left per size class. The
 * lowest parcel of R is either rejected or put, with some of the others, into a cell of some class.
 * Three facts keep it small:
 * - Cells of one size are interchangeable, so counts per class suffice, and a count above |R| acts
 *   like |R|: capping counts lets many states share one memo entry.
 * - Only maximal groups need trying: if another parcel of R could join the group in that cell, an
 *   optimum exists where it does (moving it there places no fewer parcels and frees no less room,
 *   because a subset of a fitting stack fits). So each option takes all it can.
 * - Bounds: once some option places all of R, rejecting is never tried, classes at least as large
 *   as its volume are not either (classes are sorted by volume), nor groups that leave parcels
 *   behind when their cell plus the smallest cell left already reach that volume.
 * Cost: up to ~3^n group choices in the worst case (tiny parcels in cells that hold many);
 * measured at a few ms for n = 12 and tens of ms for n = 16 on such inputs.
 * Among equal outcomes the first found wins: classes by volume, groups in mask order, reject last.
 */

interface Outcome {
  placed: number;
  volume: number;
  /** The group chosen for the lowest parcel, 0 when it is rejected. */
  group: number;
  classIndex: number;
  rest: Outcome | null;
}

const NOTHING_LEFT: Outcome = { placed: 0, volume: 0, group: 0, classIndex: -1, rest: null };

function popcount(mask: number): number {
  let count = 0;
  for (let m = mask; m !== 0; m &= m - 1) count++;
  return count;
}

function better(placed: number, volume: number, than: Outcome | null): boolean {
  return !than || placed > than.placed || (placed === than.placed && volume < than.volume);
}

/** Every fitting group inside `within` that holds `seed` and that no other parcel of `within` can join. */
export function maximalGroups(within: number, seed: number, fits: Uint8Array): number[] {
  const groups: number[] = [];
  collectMaximal(seed, within & ~seed, within & ~seed, fits, groups);
  return groups;
}

function collectMaximal(group: number, candidates: number, others: number, fits: Uint8Array, out: number[]): void {
  let maximal = true;
  for (let rest = others & ~group; rest !== 0; rest &= rest - 1) {
    if (fits[group | (rest & -rest)]) {
      maximal = false;
      break;
    }
  }
  if (maximal) {
    out.push(group);
    return;
  }
  // Extend by higher bits only, so each fitting group is reached once.
  for (let c = candidates; c !== 0; c &= c - 1) {
    const bit = c & -c;
    if (fits[group | bit]) collectMaximal(group | bit, c & (c - 1), others, fits, out);
  }
}

/**
 * The best allocation of parcels 0..n-1: most parcels placed, then least total cell volume.
 * `fits[c]` is the fit table of class c (see fitTables()); `classes` are sorted by volume.
 */
export function searchExact(n: number, fits: readonly Uint8Array[], classes: readonly ClassStock[]): Group[] {
  const search = new ExactSearch(n, fits, classes);
  const groups: Group[] = [];
  for (let step: Outcome | null = search.solve(2 ** n - 1); step; step = step.rest) {
    if (step.group === 0) continue;
    const members: number[] = [];
    for (let i = 0; i < n; i++) if (step.group & (1 << i)) members.push(i);
    groups.push({ members, classIndex: step.classIndex });
  }
  return groups;
}

class ExactSearch {
  /** Free cells left per class in the state being solved. */
  private readonly left: number[];
  private readonly radix: number;
  private readonly numericKeys: boolean;
  private readonly memo = new Map<number | string, Outcome>();

  constructor(
    private readonly n: number,
    private readonly fits: readonly Uint8Array[],
    private readonly classes: readonly ClassStock[],
  ) {
    this.left = classes.map((c) => c.count);
    this.radix = n + 1;
    this.numericKeys = Math.pow(this.radix, classes.length) * 2 ** n <= Number.MAX_SAFE_INTEGER;
  }

  /** Counts capped at |R| join the parcels' mask into one memo key. */
  private stateKey(remaining: number, size: number): number | string {
    if (!this.numericKeys) return `${remaining}:${this.left.map((l) => Math.min(l, size)).join(',')}`;
    let key = 0;
    for (const l of this.left) key = key * this.radix + Math.min(l, size);
    return key * 2 ** this.n + remaining;
  }

  private smallestVolumeLeft(): number {
    for (let c = 0; c < this.classes.length; c++) if (this.left[c]! > 0) return this.classes[c]!.volume;
    return Infinity;
  }

  solve(remaining: number): Outcome {
    if (remaining === 0) return NOTHING_LEFT;
    const size = popcount(remaining);
    const key = this.stateKey(remaining, size);
    const known = this.memo.get(key);
    if (known) return known;

    const { classes, fits, left } = this;
    const lowest = remaining & -remaining;
    let best: Outcome | null = null;
    for (let c = 0; c < classes.length; c++) {
      const volume = classes[c]!.volume;
      if (best && best.placed === size && volume >= best.volume) break;
      if (left[c] === 0 || !fits[c]![lowest]) continue;
      left[c]!--;
      const smallestLeft = this.smallestVolumeLeft();
      for (const group of maximalGroups(remaining, lowest, fits[c]!)) {
        // Bound: with all of R placed already, a group leaving parcels behind needs one more cell.
        if (best && best.placed === size && group !== remaining && volume + smallestLeft >= best.volume) continue;
        const rest = this.solve(remaining & ~group);
        const placed = popcount(group) + rest.placed;
        if (better(placed, volume + rest.volume, best)) {
          best = { placed, volume: volume + rest.volume, group, classIndex: c, rest };
        }
      }
      left[c]!++;
    }
    if (!best || best.placed < size) {
      const rest = this.solve(remaining & ~lowest);
      if (better(rest.placed, rest.volume, best)) {
        best = { placed: rest.placed, volume: rest.volume, group: 0, classIndex: -1, rest };
      }
    }
    this.memo.set(key, best!);
    return best!;
  }
}
