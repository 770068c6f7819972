/**
 * The occupancy views one cloud process keeps (locker-occupancy.ts), one per locker, each at the
 * `occupancy_version` it shows. A view is used only when the version read under the locker's lock
 * is the view's: every transaction that changes a locker's row, cells or held parcels moves the
 * version (appendCommand, and the cell and locker writes of repositories/lockers.ts), whichever
 * process makes it, so a view that another process (or another path of this one) made stale is
 * never used; it is read again. A view changes only after the transaction that changed the
 * database committed (`keep`), so a rolled-back transaction never leaves its changes in it.
 *
 * Reservations of one locker in this process run one at a time (`exclusive`): the second starts
 * from the view the first left, rather than finding the version moved and reading it again.
 *
 * Bounded by the cells the views hold: beyond the bound the least recently used views go.
 */
import type { CloudDatabase } from '../db/database.js';
import type { LockerOccupancy } from './locker-occupancy.js';

/** Cells kept in memory at most (about 200 bytes each): 5,000 lockers of 48 cells fit five times over. */
export const MAX_CACHED_CELLS = 1_200_000;

export class OccupancyCache {
  readonly #views = new Map<number, LockerOccupancy>();
  readonly #queues = new Map<number, Promise<void>>();
  #cells = 0;

  constructor(private readonly maxCells = MAX_CACHED_CELLS) {}

  /** The view of the locker if it shows `version`, else nothing (a stale view is dropped). */
  current(lockerId: number, version: number): LockerOccupancy | undefined {
    const view = this.#views.get(lockerId);
    if (!view) return undefined;
    if (view.version !== version) {
      this.forget(lockerId);
      return undefined;
    }
    // Map keeps insertion order: re-inserting marks it most recently used.
    this.#views.delete(lockerId);
    this.#views.set(lockerId, view);
    return view;
  }

  /** Keeps a view read or changed by a transaction that has committed. */
  keep(view: LockerOccupancy): void {
    this.forget(view.locker.id);
    this.#views.set(view.locker.id, view);
    this.#cells += view.size;
    for (const id of this.#views.keys()) {
      if (this.#cells <= this.maxCells) break;
      if (id !== view.locker.id) this.forget(id);
    }
  }

  forget(lockerId: number): void {
    const view = this.#views.get(lockerId);
    if (!view) return;
    this.#views.delete(lockerId);
    this.#cells -= view.size;
  }

  forgetAll(): void {
    this.#views.clear();
    this.#cells = 0;
  }

  get lockers(): number {
    return this.#views.size;
  }

  /** Runs `fn` after every earlier `exclusive` call for the same locker has finished. */
  async exclusive<T>(lockerId: number, fn: () => Promise<T>): Promise<T> {
    const before = this.#queues.get(lockerId);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = before ? before.then(() => mine) : mine;
    this.#queues.set(lockerId, tail);
    if (before) await before;
    try {
      return await fn();
    } finally {
      done();
      if (this.#queues.get(lockerId) === tail) this.#queues.delete(lockerId);
    }
  }
}

const caches = new WeakMap<CloudDatabase, OccupancyCache>();

/** The views of this process for this database (one per open database). */
export function occupancyCacheOf(cdb: CloudDatabase): OccupancyCache {
  let cache = caches.get(cdb);
  if (!cache) caches.set(cdb, (cache = new OccupancyCache()));
  return cache;
}
