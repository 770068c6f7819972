/**
 * Cell allocation on realistic lockers: the exact allocator against a first-fit baseline (each
 * parcel into the smallest free cell that holds it alone), the greedy fill, and the exhaustive
 * reference search of the tests where it finishes in reasonable time.
 */
import { allocate, sizeParcel, type AllocationRequest, type CellOpening, type ParcelToPlace } from '../cloud/src/allocation/allocate.js';
import { DEFAULT_ALLOCATION_OPTIONS } from '../cloud/src/allocation/options.js';
import { boxFitsCell, cellVolume } from '../shared/src/geometry.js';
import { exhaustiveBest, score, type Score } from '../test/allocation/reference.js';
import { seededRandom } from '../sim/src/random.js';
import type { BenchSuite, BenchTask, Comparison } from './harness.js';

interface Locker {
  name: string;
  depth: number;
  /** [width, height, count] */
  sizes: [number, number, number][];
}

const LOCKERS: Locker[] = [
  { name: '48 cells/3 sizes', depth: 600, sizes: [[400, 100, 16], [400, 200, 20], [400, 400, 12]] },
  { name: '72 cells/4 sizes', depth: 550, sizes: [[450, 100, 18], [450, 200, 24], [450, 300, 18], [450, 450, 12]] },
  { name: '96 cells/5 sizes', depth: 600, sizes: [[400, 80, 16], [400, 150, 24], [400, 250, 24], [400, 350, 20], [600, 400, 12]] },
];

/** Typical parcel shapes (mm); sizes vary by up to 10% around them. */
const SHAPES: [number, number, number][] = [
  [300, 220, 20], // envelope
  [200, 150, 100], // small box
  [330, 200, 120], // shoe box
  [390, 290, 50], // flat box
  [400, 300, 150], // medium box
  [350, 250, 200],
  [600, 80, 80], // tube
  [380, 380, 300], // large box
  [700, 500, 400], // too large for any cell
];
const SMALL_SHAPES = SHAPES.slice(0, 3);

function lockerCells(locker: Locker): CellOpening[] {
  let id = 1;
  return locker.sizes.flatMap(([width, height, count]) => Array.from({ length: count }, () => ({ id: id++, width, height })));
}

function parcels(rnd: () => number, count: number, shapes: readonly [number, number, number][]): ParcelToPlace[] {
  return Array.from({ length: count }, (_, i) => {
    if (rnd() < 0.05) return { barcode: `B${i}`, dimension: null };
    const [l, w, h] = shapes[Math.floor(rnd() * shapes.length)]!;
    const vary = (x: number) => Math.round(x * (0.9 + rnd() * 0.2));
    return { barcode: `B${i}`, dimension: { length: vary(l), width: vary(w), height: vary(h) } };
  });
}

/** Orders on a locker with a share of its cells free, different cells for every order. */
function requests(locker: Locker, parcelCount: number, shapes = SHAPES, count = 64, freeShare = 0.5): AllocationRequest[] {
  // Seeded, so every run measures the same inputs.
  const rnd = seededRandom(locker.depth * 1000 + parcelCount);
  const cells = lockerCells(locker);
  return Array.from({ length: count }, () => ({
    parcels: parcels(rnd, parcelCount, shapes),
    freeCells: cells.filter(() => rnd() < freeShare),
    lockerCells: cells,
    depth: locker.depth,
  }));
}

/** The baseline: parcels in request order, each into the smallest free cell that holds it alone. */
function firstFit(request: AllocationRequest): Score {
  const cells = request.freeCells
    .map((c) => ({ id: c.id, space: { width: c.width, height: c.height, depth: request.depth } }))
    .sort((a, b) => cellVolume(a.space) - cellVolume(b.space) || a.id - b.id);
  const used = new Set<number>();
  let placed = 0;
  let volume = 0;
  for (const parcel of request.parcels) {
    const { box } = sizeParcel(parcel.dimension, DEFAULT_ALLOCATION_OPTIONS);
    const cell = cells.find((c) => !used.has(c.id) && boxFitsCell(box, c.space));
    if (!cell) continue;
    used.add(cell.id);
    placed++;
    volume += cellVolume(cell.space);
  }
  return { placed, volume };
}

const GREEDY = { exactSearchMaxParcels: 0 };

/** A task that works through the inputs in turn, one per call. */
function task(name: string, inputs: readonly AllocationRequest[], fn: (r: AllocationRequest) => unknown): BenchTask {
  let next = 0;
  return { name, fn: () => fn(inputs[next++ % inputs.length]!) };
}

function comparison(name: string, inputs: AllocationRequest[], withExhaustive: boolean): Comparison {
  const contenders = [
    task('allocate', inputs, (r) => allocate(r)),
    task('allocate, greedy fill', inputs, (r) => allocate({ ...r, options: GREEDY })),
  ];
  if (withExhaustive) contenders.push(task('exhaustive search', inputs, exhaustiveBest));
  return { name, baseline: task('first fit, no sharing', inputs, firstFit), contenders };
}

function comparisons(): Comparison[] {
  const list: Comparison[] = [];
  for (const locker of LOCKERS) {
    for (const n of [1, 3, 6, 10]) list.push(comparison(`${locker.name}, ${n} parcels`, requests(locker, n), n <= 3));
  }
  const largest = LOCKERS[2]!;
  // The worst case at the exact-search limit: small parcels that can share any cell in many ways.
  list.push(comparison(`${largest.name}, 12 small parcels`, requests(largest, 12, SMALL_SHAPES, 16), false));
  list.push(comparison(`${largest.name}, 16 small parcels, above the exact limit`, requests(largest, 16, SMALL_SHAPES, 16), false));
  return list;
}

/** How much worse the quick methods allocate than the optimum, over all inputs of each order size. */
function notes(): string[] {
  return [0.5, 0.1].flatMap((freeShare) => [3, 6, 10].map((n) => quality(n, freeShare)));
}

function quality(n: number, freeShare: number): string {
  const totals = { optimum: { placed: 0, volume: 0 }, firstFit: { placed: 0, volume: 0 }, greedy: { placed: 0, volume: 0 } };
  for (const locker of LOCKERS) {
    for (const r of requests(locker, n, SHAPES, 64, freeShare)) {
      addScore(totals.optimum, score(r, allocate(r)));
      addScore(totals.firstFit, firstFit(r));
      addScore(totals.greedy, score(r, allocate({ ...r, options: GREEDY })));
    }
  }
  const versus = (s: Score) =>
    `${((100 * s.placed) / totals.optimum.placed).toFixed(1)}% of the parcels in ${(s.volume / totals.optimum.volume).toFixed(2)}x the cell volume`;
  const free = `${Math.round(freeShare * 100)}% of cells free`;
  return `${n} parcels, ${free}, against the optimum: first fit places ${versus(totals.firstFit)}; greedy fill ${versus(totals.greedy)}`;
}

function addScore(into: Score, s: Score): void {
  into.placed += s.placed;
  into.volume += s.volume;
}

export const suite: BenchSuite = { title: 'allocation', comparisons, notes };
