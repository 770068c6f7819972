/**
 * A locker's occupancy as one cloud process holds it in memory: its row, cells and the parcels
 * holding them, at a version of the locker's `occupancy_version` (occupancy-cache.ts keeps it
 * valid). Besides the lists the rules of occupancy.ts read, it keeps the cells free now in
 * classes of one opening, accessibility and segment, ids ascending, so that a reservation reads
 * the classes a marketplace may use instead of every cell: its cost grows with the parcels and
 * the size classes, not with the locker's cells.
 *
 * The index encodes the rule of `freeCells` (occupancy.ts): a usable locker's cell is free for a
 * marketplace it serves when it is not flagged and every parcel in it is that marketplace's,
 * awaiting return (emptied on the courier's visit). So an unflagged cell is either open (no
 * holder: free for every marketplace it serves), kept for one marketplace (only its
 * Awaiting-return parcels), or held. A test compares the two for random lockers.
 */
import { OrderState, ParcelState } from '../../../shared/src/enums.js';
import type { CellClass, CellShape } from '../allocation/allocate.js';
import type { Tx } from '../db/transaction.js';
import { type CellHolder, cellHolders } from '../repositories/occupancy.js';
import { type Cell, type Locker, cellsOf } from '../repositories/lockers.js';
import { cellServesMarketplace, isFlagged } from './cells.js';
import { emptiedOnVisit, type LockerView, type ViewedLocker } from './occupancy.js';

/** Free cells of one opening, accessibility and segment. */
interface FreeClass extends CellClass {
  segment: readonly string[] | null;
  ids: number[];
}

/** A parcel the process reserved a cell for: what the view learns from the reservation it wrote. */
export interface Reserved {
  orderId: string;
  externalId: string;
  marketplaceId: string;
  cells: readonly { cellId: number; barcodes: readonly string[] }[];
}

function insertSorted(ids: number[], id: number): void {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  if (ids[lo] !== id) ids.splice(lo, 0, id);
}

function removeSorted(ids: number[], id: number): void {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  if (ids[lo] === id) ids.splice(lo, 1);
}

const classKey = (c: Cell): string => `${c.width}x${c.height}${c.accessible ? 'a' : ''}${c.segment === null ? '' : `:${JSON.stringify(c.segment)}`}`;

export class LockerOccupancy implements LockerView {
  readonly locker: ViewedLocker;
  readonly cells: Cell[];
  readonly holders: CellHolder[];
  readonly #byId = new Map<number, Cell>();
  readonly #holdersOf = new Map<number, CellHolder[]>();
  /** Open cells by class key. */
  readonly #open = new Map<string, FreeClass>();
  /** Cells held only by one marketplace's Awaiting-return parcels, by marketplace. */
  readonly #kept = new Map<string, number[]>();
  /** Where each indexed cell is: its open class key, or the marketplace it is kept for. */
  readonly #where = new Map<number, { open: string } | { keptFor: string }>();
  /** Distinct shapes of the cells, with their segment: what a marketplace's cells look like. */
  readonly #shapes: (CellShape & { segment: readonly string[] | null })[] = [];

  constructor(
    /** The locker row as read with this version. */
    readonly row: Locker,
    /** The locker's `occupancy_version` this view shows. */
    public version: number,
    cells: Cell[],
    holders: CellHolder[],
  ) {
    this.locker = { id: row.id, timezone: row.timezone, depth: row.depth, usable: row.active && !row.broken };
    this.cells = cells;
    this.holders = holders;
    const shapeKeys = new Set<string>();
    for (const c of cells) {
      this.#byId.set(c.id, c);
      const key = classKey(c);
      if (!shapeKeys.has(key)) {
        shapeKeys.add(key);
        this.#shapes.push({ width: c.width, height: c.height, accessible: c.accessible, segment: c.segment });
      }
    }
    for (const h of holders) this.#holders(h.cellId).push(h);
    for (const c of cells) this.#index(c);
  }

  #holders(cellId: number): CellHolder[] {
    let list = this.#holdersOf.get(cellId);
    if (!list) this.#holdersOf.set(cellId, (list = []));
    return list;
  }

  /** Puts an unindexed cell where its flags and holders say. */
  #index(cell: Cell): void {
    if (isFlagged(cell)) return;
    const holders = this.#holdersOf.get(cell.id) ?? [];
    if (holders.length === 0) {
      const key = classKey(cell);
      let free = this.#open.get(key);
      if (!free) {
        free = { width: cell.width, height: cell.height, accessible: cell.accessible, segment: cell.segment, ids: [] };
        this.#open.set(key, free);
      }
      insertSorted(free.ids, cell.id);
      this.#where.set(cell.id, { open: key });
      return;
    }
    const marketplaceId = holders[0]!.marketplaceId;
    if (holders.every((h) => emptiedOnVisit(h, marketplaceId))) {
      let kept = this.#kept.get(marketplaceId);
      if (!kept) this.#kept.set(marketplaceId, (kept = []));
      insertSorted(kept, cell.id);
      this.#where.set(cell.id, { keptFor: marketplaceId });
    }
  }

  #unindex(cellId: number): void {
    const where = this.#where.get(cellId);
    if (!where) return;
    if ('open' in where) removeSorted(this.#open.get(where.open)!.ids, cellId);
    else removeSorted(this.#kept.get(where.keptFor)!, cellId);
    this.#where.delete(cellId);
  }

  /** The cells the marketplace may reserve now, in classes (freeCells of occupancy.ts, grouped). */
  freeClassesFor(marketplaceId: string): CellClass[] {
    if (!this.locker.usable) return [];
    const classes: CellClass[] = [];
    for (const c of this.#open.values()) {
      if (c.ids.length > 0 && (c.segment === null || c.segment.includes(marketplaceId))) classes.push(c);
    }
    const kept = this.#kept.get(marketplaceId);
    if (kept && kept.length > 0) {
      // A few cells at most (the marketplace's parcels awaiting return): classes of their own.
      const extra = new Map<string, CellClass & { ids: number[] }>();
      for (const id of kept) {
        const cell = this.#byId.get(id)!;
        if (!cellServesMarketplace(cell, marketplaceId)) continue;
        const key = classKey(cell);
        let c = extra.get(key);
        if (!c) extra.set(key, (c = { width: cell.width, height: cell.height, accessible: cell.accessible, ids: [] }));
        c.ids.push(id);
      }
      classes.push(...extra.values());
    }
    return classes;
  }

  /** The shapes of the locker's cells that serve the marketplace, whatever their state. */
  shapesFor(marketplaceId: string): CellShape[] {
    return this.#shapes.filter((s) => s.segment === null || s.segment.includes(marketplaceId));
  }

  /** Records the reservation this process wrote (after its transaction committed), at `version`. */
  reserve(reserved: Reserved, version: number): void {
    for (const { cellId, barcodes } of reserved.cells) {
      this.#unindex(cellId);
      for (const barcode of barcodes) {
        const holder: CellHolder = {
          cellId,
          orderId: reserved.orderId,
          externalId: reserved.externalId,
          marketplaceId: reserved.marketplaceId,
          orderState: OrderState.New,
          parcelState: ParcelState.Pending,
          barcode,
          holdUntil: null,
        };
        this.holders.push(holder);
        this.#holders(cellId).push(holder);
      }
      const cell = this.#byId.get(cellId);
      if (cell) this.#index(cell);
    }
    this.version = version;
  }

  /** How many cells the view holds (the cache's bound counts cells). */
  get size(): number {
    return this.cells.length;
  }
}

/** Reads a locker's occupancy as of `version` (which the caller read in the same transaction). */
export async function loadOccupancy(tx: Tx, locker: Locker, version: number): Promise<LockerOccupancy> {
  return new LockerOccupancy(locker, version, await cellsOf(tx, locker.id), await cellHolders(tx, locker.id));
}
