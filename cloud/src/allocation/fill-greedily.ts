import type { ClassStock, Group } from './group.js';
import { membersFit, type StackFit } from './stack-fit.js';

/**
 * Bounded heuristic for orders too large for the exact search. Parcels go largest first into the
 * first used cell they can join, else into a fresh cell of the smallest fitting class; then each
 * used cell moves to the smallest free class that still holds its stack, and rejected parcels get
 * another try in the cells this frees, until nothing changes (each round places more or frees room).
 *
 * Guarantee: the result never overfills a cell, and no rejected parcel fits an unused free cell
 * or can join a used cell as it stands. Optimality is not guaranteed. Cost: O(n^2 * classes) per
 * round, with at most a few rounds in practice.
 */
export function fillGreedily(n: number, fits: readonly StackFit[], classes: readonly ClassStock[]): Group[] {
  const left = classes.map((c) => c.count);
  const groups: Group[] = [];

  const place = (item: number): boolean => {
    for (const group of groups) {
      if (membersFit(fits[group.classIndex]!, [...group.members, item])) {
        group.members.push(item);
        return true;
      }
    }
    for (let c = 0; c < classes.length; c++) {
      if (left[c]! > 0 && membersFit(fits[c]!, [item])) {
        left[c]!--;
        groups.push({ members: [item], classIndex: c });
        return true;
      }
    }
    return false;
  };

  const downsize = (): boolean => {
    let changed = false;
    for (const group of groups) {
      for (let c = 0; c < classes.length; c++) {
        if (classes[c]!.volume >= classes[group.classIndex]!.volume) break;
        if (left[c]! > 0 && membersFit(fits[c]!, group.members)) {
          left[c]!--;
          left[group.classIndex]!++;
          group.classIndex = c;
          changed = true;
          break;
        }
      }
    }
    return changed;
  };

  // Items arrive largest first (the caller's search order).
  let rejected = Array.from({ length: n }, (_, i) => i);
  for (;;) {
    rejected = rejected.filter((item) => !place(item));
    if (!downsize()) break;
  }
  return groups;
}
