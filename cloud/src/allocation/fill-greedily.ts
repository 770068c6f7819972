import type { ClassStock, Group } from './group.js';
import { membersFit, type StackFit } from './stack-fit.js';

/**
 * Bounded heuristic for orders too large for the exact search. Parcels arrive largest first; each
 * joins the first used cell that still holds it, else opens a free cell of the smallest class
 * that fits it, else is rejected.
 *
 * Guarantee: no cell is overfilled, and no rejected parcel fits an unused free cell or can join a
 * used cell: free cells only run out; a stack a parcel could not join stays closed to it as it
 * grows; and a cell opened after it was rejected was free then, so it does not fit. Optimality is not guaranteed. Cost: O(n * (n + classes)) fit checks of up to n parcels.
 */
export function fillGreedily(n: number, fits: readonly StackFit[], classes: readonly ClassStock[]): Group[] {
  const left = classes.map((c) => c.count);
  const groups: Group[] = [];
  for (let item = 0; item < n; item++) {
    const joined = groups.find((group) => membersFit(fits[group.classIndex]!, [...group.members, item]));
    if (joined) {
      joined.members.push(item);
      continue;
    }
    const c = classes.findIndex((_, k) => left[k]! > 0 && membersFit(fits[k]!, [item]));
    if (c >= 0) {
      left[c]!--;
      groups.push({ members: [item], classIndex: c });
    }
  }
  return groups;
}
