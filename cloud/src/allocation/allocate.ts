/**
 * Cell selection for an order created with reservation (spec "Cell selection logic").
 *
 * The caller decides which cells are eligible (segment, flags, occupancy, Awaiting-return cells)
 * and passes them in; this function only decides which parcels go where. Parcels may be rotated,
 * and parcels of the order may share a cell when they fit as one stack (shared/src/geometry.ts).
 *
 * Each parcel ends in exactly one bucket:
 * - permanentlyRejected: it fits no cell of the locker available to the marketplace, even rotated;
 * - temporarilyRejected: it fits some such cell, but it is not in the chosen allocation;
 * - a reserved cell otherwise.
 *
 * Objective among allocations that never overfill a cell: place the most parcels, then use the
 * least total cell volume (keeps larger cells free for later orders), then a fixed tie-break:
 * larger parcels are decided first, smaller size classes are tried first, and within a size class
 * the smallest cell ids are used, given out in request order of each cell's first parcel.
 * Orders with at most `exactSearchMaxParcels` parcels that fit a free cell get the exact optimum
 * (exact-search.ts); larger ones a greedy fill with a weaker guarantee (fill-greedily.ts).
 */
import { cellVolume, minStackExtent, type Box, type CellSpace } from '../../../shared/src/geometry.js';
import { searchExact } from './exact-search.js';
import { fillGreedily } from './fill-greedily.js';
import type { Group } from './group.js';
import { allocationOptionsSchema, DEFAULT_ALLOCATION_OPTIONS, type AllocationOptions } from './options.js';
import { fitTables, stackFit } from './stack-fit.js';

export interface ParcelToPlace {
  barcode: string;
  /** As the marketplace sent it: any extent may be missing. */
  dimension: Partial<Box> | null | undefined;
  /** Only a cell reachable from a wheelchair will do (a hard constraint). */
  accessible?: boolean;
}

/** A cell's front opening; its depth is the locker's. */
export interface CellOpening {
  id: number;
  width: number;
  height: number;
  /** Reachable from a wheelchair. */
  accessible?: boolean;
}

/** A cell's opening and whether it is accessible, without its id: what fits where. */
export interface CellShape {
  width: number;
  height: number;
  accessible?: boolean;
}

/**
 * Free cells of one opening and accessibility, as the locker's occupancy view keeps them
 * (lockers/locker-occupancy.ts): allocation then costs per class and parcel, not per cell.
 */
export interface CellClass {
  width: number;
  height: number;
  accessible: boolean;
  /** Ascending, without duplicates. */
  ids: readonly number[];
}

interface AllocationBase {
  parcels: readonly ParcelToPlace[];
  depth: number;
  options?: Partial<AllocationOptions>;
}

/** The cells one by one. */
export interface AllocationRequest extends AllocationBase {
  /** Cells that may be reserved now. Taken to be cells of the locker as well. */
  freeCells: readonly CellOpening[];
  /** Every cell of the locker available to the marketplace, whatever its state. */
  lockerCells: readonly CellOpening[];
}

/** The cells in classes (the occupancy view's form). */
export interface ClassAllocationRequest extends AllocationBase {
  freeClasses: readonly CellClass[];
  /** The shapes of the locker's cells available to the marketplace, whatever their state. */
  lockerShapes: readonly CellShape[];
}

export interface Allocation {
  /** Sorted by cell id; barcodes in request order. */
  cells: { cellId: number; barcodes: string[] }[];
  /** In request order. */
  temporarilyRejected: string[];
  /** In request order. */
  permanentlyRejected: string[];
}

/** A parcel as allocation sees it: unstated extents filled in (see AllocationOptions). */
export interface SizedParcel {
  box: Box;
  /** Its size was not fully stated and such parcels must not share a cell. */
  alone: boolean;
}

function stated(value: number | undefined): value is number {
  return value !== undefined && value > 0;
}

export function sizeParcel(dimension: ParcelToPlace['dimension'], options: AllocationOptions): SizedParcel {
  const d = dimension ?? {};
  const fallback = options.defaultDimension;
  const complete = stated(d.length) && stated(d.width) && stated(d.height);
  return {
    box: {
      length: stated(d.length) ? d.length : fallback.length,
      width: stated(d.width) ? d.width : fallback.width,
      height: stated(d.height) ? d.height : fallback.height,
    },
    alone: !complete && !options.unknownSizeSharesCell,
  };
}

interface SizeClass {
  space: CellSpace;
  volume: number;
  /** Free cells of this opening: the classes' ascending id lists (accessible or not), less `exclude`. */
  sources: (readonly number[])[];
  count: number;
  /** The smallest free id: the tie-break between classes of equal volume. */
  firstId: number;
}

/** Values by cell opening; a nested map, so no key strings are built per cell. */
class ByOpening<T> {
  private readonly rows = new Map<number, Map<number, T>>();

  get(width: number, height: number): T | undefined {
    return this.rows.get(width)?.get(height);
  }

  set(width: number, height: number, value: T): void {
    let row = this.rows.get(width);
    if (!row) this.rows.set(width, (row = new Map<number, T>()));
    row.set(height, value);
  }

  values(): T[] {
    return [...this.rows.values()].flatMap((row) => [...row.values()]);
  }
}

/** Cells given one by one, grouped in classes (ids ascending, each once). */
function classesOf(cells: readonly CellOpening[]): CellClass[] {
  const byKey = new Map<string, CellClass & { ids: number[] }>();
  const seen = new Set<number>();
  for (const { id, width, height, accessible } of cells) {
    if (seen.has(id)) continue;
    seen.add(id);
    const key = `${width}x${height}${accessible ? 'a' : ''}`;
    let c = byKey.get(key);
    if (!c) byKey.set(key, (c = { width, height, accessible: !!accessible, ids: [] }));
    c.ids.push(id);
  }
  const classes = [...byKey.values()];
  for (const c of classes) c.ids.sort((a, b) => a - b);
  return classes;
}

/** The `k` smallest ids of ascending lists, skipping `exclude`: a merge that stops after k. */
function smallestIds(sources: readonly (readonly number[])[], exclude: ReadonlySet<number>, k: number): number[] {
  const at = sources.map(() => 0);
  const out: number[] = [];
  while (out.length < k) {
    let best = -1;
    for (let s = 0; s < sources.length; s++) {
      const list = sources[s]!;
      while (at[s]! < list.length && exclude.has(list[at[s]!]!)) at[s]!++;
      if (at[s]! < list.length && (best < 0 || list[at[s]!]! < sources[best]![at[best]!]!)) best = s;
    }
    if (best < 0) break;
    out.push(sources[best]![at[best]!++]!);
  }
  return out;
}

/** Free classes merged by opening, smallest volume first (then smallest id); empty ones left out. */
function sizeClasses(classes: readonly CellClass[], depth: number, exclude: ReadonlySet<number>): SizeClass[] {
  const byOpening = new ByOpening<SizeClass>();
  for (const c of classes) {
    let sizeClass = byOpening.get(c.width, c.height);
    if (!sizeClass) {
      const space = { width: c.width, height: c.height, depth };
      sizeClass = { space, volume: cellVolume(space), sources: [], count: 0, firstId: Infinity };
      byOpening.set(c.width, c.height, sizeClass);
    }
    sizeClass.sources.push(c.ids);
    sizeClass.count += c.ids.length;
  }
  const sized = byOpening.values();
  for (const sc of sized) {
    for (const id of exclude) if (sc.sources.some((ids) => includesSorted(ids, id))) sc.count--;
    sc.firstId = smallestIds(sc.sources, exclude, 1)[0] ?? Infinity;
  }
  return sized.filter((sc) => sc.count > 0).sort((a, b) => a.volume - b.volume || a.firstId - b.firstId);
}

function includesSorted(ids: readonly number[], id: number): boolean {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = ids[mid]!;
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** boxFitsCell() without its allocations: one box fits some rotation iff it fits stacked along the depth. */
function fitsAlone(box: Box, space: CellSpace): boolean {
  return minStackExtent(box, space.width, space.height) <= space.depth;
}

/** The distinct cell spaces among the given shapes: a locker has a handful of sizes, not one per cell. */
function distinctSpaces(shapes: readonly CellShape[], depth: number): CellSpace[] {
  const spaces = new ByOpening<CellSpace>();
  for (const { width, height } of shapes) {
    if (!spaces.get(width, height)) spaces.set(width, height, { width, height, depth });
  }
  return spaces.values();
}

interface Pass {
  parcels: readonly ParcelToPlace[];
  free: readonly CellClass[];
  /** Cells already given out by an earlier pass. */
  exclude: ReadonlySet<number>;
  lockerShapes: readonly CellShape[];
  depth: number;
  options: AllocationOptions;
}

/**
 * Parcels that ask for an accessible cell are placed first, among the accessible cells only (the
 * locker's accessible cells decide whether such a parcel is rejected permanently); the other
 * parcels then share what is left. An order without such parcels is allocated in one pass, as
 * described above; a mixed order gets the objective within each of the two passes.
 */
/** Options objects already read: a process passes the same one (its settings') with every order. */
const readOptions = new WeakMap<object, AllocationOptions>();

function optionsOf(given: Partial<AllocationOptions> | undefined): AllocationOptions {
  if (!given) return DEFAULT_ALLOCATION_OPTIONS;
  let options = readOptions.get(given);
  if (!options) readOptions.set(given, (options = allocationOptionsSchema.parse(given)));
  return options;
}

export function allocate(request: AllocationRequest | ClassAllocationRequest): Allocation {
  const options = optionsOf(request.options);
  const free = 'freeClasses' in request ? request.freeClasses : classesOf(request.freeCells);
  // Free cells are cells of the locker too.
  const lockerShapes = [...('lockerShapes' in request ? request.lockerShapes : request.lockerCells), ...free];
  if (request.parcels.length === 1) return allocateOne(request.parcels[0]!, free, lockerShapes, request.depth, options);
  const base = { exclude: new Set<number>(), depth: request.depth, options };
  if (!request.parcels.some((p) => p.accessible)) return allocateOnePass({ ...base, parcels: request.parcels, free, lockerShapes });
  const first = allocateOnePass({
    ...base,
    parcels: request.parcels.filter((p) => p.accessible),
    free: free.filter((c) => c.accessible),
    lockerShapes: lockerShapes.filter((c) => c.accessible),
  });
  const second = allocateOnePass({
    ...base,
    parcels: request.parcels.filter((p) => !p.accessible),
    free,
    exclude: new Set(first.cells.map((c) => c.cellId)),
    lockerShapes,
  });
  const temporarily = new Set([...first.temporarilyRejected, ...second.temporarilyRejected]);
  const permanently = new Set([...first.permanentlyRejected, ...second.permanentlyRejected]);
  const barcodes = request.parcels.map((p) => p.barcode);
  return {
    cells: [...first.cells, ...second.cells].sort((a, b) => a.cellId - b.cellId),
    temporarilyRejected: barcodes.filter((b) => temporarily.has(b)),
    permanentlyRejected: barcodes.filter((b) => permanently.has(b)),
  };
}

/**
 * The whole allocation of a one-parcel order (most orders) in one look at each class: the same
 * answer as the passes below give it (permanently rejected when no cell of the locker fits it;
 * else the smallest id of the least-volume opening it fits, smallest id first between openings of
 * equal volume; temporarily rejected when no free cell fits), without their bookkeeping.
 */
function allocateOne(parcel: ParcelToPlace, free: readonly CellClass[], lockerShapes: readonly CellShape[], depth: number, options: AllocationOptions): Allocation {
  const { box } = sizeParcel(parcel.dimension, options);
  const usable = (shape: CellShape): boolean => !parcel.accessible || !!shape.accessible;
  const answer: Allocation = { cells: [], temporarilyRejected: [], permanentlyRejected: [] };
  if (!lockerShapes.some((s) => usable(s) && fitsAlone(box, { width: s.width, height: s.height, depth }))) {
    answer.permanentlyRejected.push(parcel.barcode);
    return answer;
  }
  let best: { volume: number; id: number } | undefined;
  for (const c of free) {
    const id = c.ids[0];
    if (id === undefined || !usable(c)) continue;
    const space = { width: c.width, height: c.height, depth };
    if (!fitsAlone(box, space)) continue;
    const volume = cellVolume(space);
    if (!best || volume < best.volume || (volume === best.volume && id < best.id)) best = { volume, id };
  }
  if (best) answer.cells.push({ cellId: best.id, barcodes: [parcel.barcode] });
  else answer.temporarilyRejected.push(parcel.barcode);
  return answer;
}

function allocateOnePass(pass: Pass): Allocation {
  const { parcels, depth, options } = pass;
  const sized = parcels.map((p) => sizeParcel(p.dimension, options));
  const lockerSpaces = distinctSpaces(pass.lockerShapes, depth);
  const classes = sizeClasses(pass.free, depth, pass.exclude);

  const permanent = sized.map((p) => !lockerSpaces.some((space) => fitsAlone(p.box, space)));
  // Search order: largest parcel first (fewer options early), then request order.
  const items = sized
    .map((p, index) => ({ ...p, index, volume: p.box.length * p.box.width * p.box.height }))
    .filter((p) => !permanent[p.index] && classes.some((c) => fitsAlone(p.box, c.space)))
    .sort((a, b) => b.volume - a.volume || a.index - b.index);

  const boxes = items.map((p) => p.box);
  const alone = items.map((p) => p.alone);
  const fits = classes.map((c) => stackFit(boxes, alone, c.space));
  const stock = classes.map((c) => ({ volume: c.volume, count: c.count }));
  const groups =
    items.length <= options.exactSearchMaxParcels
      ? searchExact(items.length, fitTables(fits, items.length), stock)
      : fillGreedily(items.length, fits, stock);

  return describe(groups, items.map((p) => p.index), classes, pass.exclude, parcels, permanent);
}

function describe(
  groups: readonly Group[],
  requestIndex: readonly number[],
  classes: readonly SizeClass[],
  exclude: ReadonlySet<number>,
  parcels: readonly ParcelToPlace[],
  permanent: readonly boolean[],
): Allocation {
  const placed = new Set<number>();
  const taken = classes.map(() => 0);
  // Each class gives out its smallest free ids, as many as it has groups.
  const wanted = classes.map(() => 0);
  for (const g of groups) wanted[g.classIndex]!++;
  const ids = classes.map((c, k) => (wanted[k]! > 0 ? smallestIds(c.sources, exclude, wanted[k]!) : []));
  const cells = groups
    .map((g) => ({ classIndex: g.classIndex, indexes: g.members.map((m) => requestIndex[m]!).sort((a, b) => a - b) }))
    .sort((a, b) => a.indexes[0]! - b.indexes[0]!)
    .map(({ classIndex, indexes }) => {
      for (const i of indexes) placed.add(i);
      const cellId = ids[classIndex]![taken[classIndex]!++]!;
      return { cellId, barcodes: indexes.map((i) => parcels[i]!.barcode) };
    })
    .sort((a, b) => a.cellId - b.cellId);
  const allocation: Allocation = { cells, temporarilyRejected: [], permanentlyRejected: [] };
  parcels.forEach((p, i) => {
    if (!placed.has(i)) (permanent[i] ? allocation.permanentlyRejected : allocation.temporarilyRejected).push(p.barcode);
  });
  return allocation;
}
