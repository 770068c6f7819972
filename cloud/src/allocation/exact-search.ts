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
 * - Bound: once some option places all of R, classes at least as large as its volume cannot beat
 *   it (classes are sorted by volume), and rejecting is never tried.
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
  const others = within & ~seed;
  const grow = (group: number, candidates: number): void => {
    let maximal = true;
    for (let rest = others & ~group; rest !== 0; rest &= rest - 1) {
      if (fits[group | (rest & -rest)]) {
        maximal = false;
        break;
      }
    }
    if (maximal) {
      groups.push(group);
      return;
    }
    // Extend by higher bits only, so each fitting group is reached once.
    for (let c = candidates; c !== 0; c &= c - 1) {
      const bit = c & -c;
      if (fits[group | bit]) grow(group | bit, c & (c - 1));
    }
  };
  grow(seed, others);
  return groups;
}

/**
 * The best allocation of parcels 0..n-1: most parcels placed, then least total cell volume.
 * `fits[c]` is the fit table of class c (see fitTable()); `classes` are sorted by volume.
 */
export function searchExact(n: number, fits: readonly Uint8Array[], classes: readonly ClassStock[]): Group[] {
  const left = classes.map((c) => c.count);
  const radix = n + 1;
  const numericKeys = Math.pow(radix, classes.length) * 2 ** n <= Number.MAX_SAFE_INTEGER;
  const memo = new Map<number | string, Outcome>();

  const stateKey = (remaining: number, size: number): number | string => {
    if (!numericKeys) return `${remaining}:${left.map((l) => Math.min(l, size)).join(',')}`;
    let key = 0;
    for (const l of left) key = key * radix + Math.min(l, size);
    return key * 2 ** n + remaining;
  };

  const solve = (remaining: number): Outcome => {
    if (remaining === 0) return NOTHING_LEFT;
    const size = popcount(remaining);
    const key = stateKey(remaining, size);
    const known = memo.get(key);
    if (known) return known;

    const lowest = remaining & -remaining;
    let best: Outcome | null = null;
    for (let c = 0; c < classes.length; c++) {
      const volume = classes[c]!.volume;
      if (best && best.placed === size && volume >= best.volume) break;
      if (left[c] === 0 || !fits[c]![lowest]) continue;
      left[c]!--;
      for (const group of maximalGroups(remaining, lowest, fits[c]!)) {
        const rest = solve(remaining & ~group);
        const placed = popcount(group) + rest.placed;
        if (better(placed, volume + rest.volume, best)) {
          best = { placed, volume: volume + rest.volume, group, classIndex: c, rest };
        }
      }
      left[c]!++;
    }
    if (!best || best.placed < size) {
      const rest = solve(remaining & ~lowest);
      if (better(rest.placed, rest.volume, best)) {
        best = { placed: rest.placed, volume: rest.volume, group: 0, classIndex: -1, rest };
      }
    }
    memo.set(key, best!);
    return best!;
  };

  const groups: Group[] = [];
  for (let step: Outcome | null = solve(2 ** n - 1); step; step = step.rest) {
    if (step.group === 0) continue;
    const members: number[] = [];
    for (let i = 0; i < n; i++) if (step.group & (1 << i)) members.push(i);
    groups.push({ members, classIndex: step.classIndex });
  }
  return groups;
}
