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

export interface AllocationRequest {
  parcels: readonly ParcelToPlace[];
  /** Cells that may be reserved now. Taken to be cells of the locker as well. */
  freeCells: readonly CellOpening[];
  /** Every cell of the locker available to the marketplace, whatever its state. */
  lockerCells: readonly CellOpening[];
  depth: number;
  options?: Partial<AllocationOptions>;
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
  /** Ascending. */
  cellIds: number[];
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

/** Free cells grouped by opening, smallest volume first (then smallest id, so input order is irrelevant). */
function sizeClasses(cells: readonly CellOpening[], depth: number): SizeClass[] {
  const byOpening = new ByOpening<SizeClass>();
  const seen = new Set<number>();
  for (const { id, width, height } of cells) {
    if (seen.has(id)) continue;
    seen.add(id);
    let sizeClass = byOpening.get(width, height);
    if (!sizeClass) {
      const space = { width, height, depth };
      sizeClass = { space, volume: cellVolume(space), cellIds: [] };
      byOpening.set(width, height, sizeClass);
    }
    sizeClass.cellIds.push(id);
  }
  const classes = byOpening.values();
  for (const c of classes) c.cellIds.sort((a, b) => a - b);
  return classes.sort((a, b) => a.volume - b.volume || a.cellIds[0]! - b.cellIds[0]!);
}

/** boxFitsCell() without its allocations: one box fits some rotation iff it fits stacked along the depth. */
function fitsAlone(box: Box, space: CellSpace): boolean {
  return minStackExtent(box, space.width, space.height) <= space.depth;
}

/** The distinct cell spaces among the given cells: a locker has a handful of sizes, not one per cell. */
function distinctSpaces(cellLists: readonly (readonly CellOpening[])[], depth: number): CellSpace[] {
  const spaces = new ByOpening<CellSpace>();
  for (const cells of cellLists) {
    for (const { width, height } of cells) {
      if (!spaces.get(width, height)) spaces.set(width, height, { width, height, depth });
    }
  }
  return spaces.values();
}

/**
 * Parcels that ask for an accessible cell are placed first, among the accessible cells only (the
 * locker's accessible cells decide whether such a parcel is rejected permanently); the other
 * parcels then share what is left. An order without such parcels is allocated in one pass, as
 * described above; a mixed order gets the objective within each of the two passes.
 */
export function allocate(request: AllocationRequest): Allocation {
  if (!request.parcels.some((p) => p.accessible)) return allocateOnePass(request);
  const onlyAccessible = (cells: readonly CellOpening[]) => cells.filter((c) => c.accessible);
  const first = allocateOnePass({
    ...request,
    parcels: request.parcels.filter((p) => p.accessible),
    freeCells: onlyAccessible(request.freeCells),
    lockerCells: onlyAccessible(request.lockerCells),
  });
  const used = new Set(first.cells.map((c) => c.cellId));
  const second = allocateOnePass({
    ...request,
    parcels: request.parcels.filter((p) => !p.accessible),
    freeCells: request.freeCells.filter((c) => !used.has(c.id)),
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

function allocateOnePass(request: AllocationRequest): Allocation {
  const options = request.options ? allocationOptionsSchema.parse(request.options) : DEFAULT_ALLOCATION_OPTIONS;
  const { parcels, depth } = request;
  const sized = parcels.map((p) => sizeParcel(p.dimension, options));
  const lockerSpaces = distinctSpaces([request.lockerCells, request.freeCells], depth);
  const classes = sizeClasses(request.freeCells, depth);

  const permanent = sized.map((p) => !lockerSpaces.some((space) => fitsAlone(p.box, space)));
  // Search order: largest parcel first (fewer options early), then request order.
  const items = sized
    .map((p, index) => ({ ...p, index, volume: p.box.length * p.box.width * p.box.height }))
    .filter((p) => !permanent[p.index] && classes.some((c) => fitsAlone(p.box, c.space)))
    .sort((a, b) => b.volume - a.volume || a.index - b.index);

  const boxes = items.map((p) => p.box);
  const alone = items.map((p) => p.alone);
  const fits = classes.map((c) => stackFit(boxes, alone, c.space));
  const stock = classes.map((c) => ({ volume: c.volume, count: c.cellIds.length }));
  const groups =
    items.length <= options.exactSearchMaxParcels
      ? searchExact(items.length, fitTables(fits, items.length), stock)
      : fillGreedily(items.length, fits, stock);

  return describe(groups, items.map((p) => p.index), classes, parcels, permanent);
}

function describe(
  groups: readonly Group[],
  requestIndex: readonly number[],
  classes: readonly SizeClass[],
  parcels: readonly ParcelToPlace[],
  permanent: readonly boolean[],
): Allocation {
  const placed = new Set<number>();
  const taken = classes.map(() => 0);
  const cells = groups
    .map((g) => ({ classIndex: g.classIndex, indexes: g.members.map((m) => requestIndex[m]!).sort((a, b) => a - b) }))
    .sort((a, b) => a.indexes[0]! - b.indexes[0]!)
    .map(({ classIndex, indexes }) => {
      for (const i of indexes) placed.add(i);
      const cellId = classes[classIndex]!.cellIds[taken[classIndex]!++]!;
      return { cellId, barcodes: indexes.map((i) => parcels[i]!.barcode) };
    })
    .sort((a, b) => a.cellId - b.cellId);
  const allocation: Allocation = { cells, temporarilyRejected: [], permanentlyRejected: [] };
  parcels.forEach((p, i) => {
    if (!placed.has(i)) (permanent[i] ? allocation.permanentlyRejected : allocation.temporarilyRejected).push(p.barcode);
  });
  return allocation;
}
