/** Glue between the locker view (which cells may be used) and the pure allocator (which go where). */
import { allocate, type Allocation } from '../allocation/allocate.js';
import type { AllocationOptions } from '../allocation/options.js';
import { freeCells, marketplaceCells, type LockerView } from '../lockers/occupancy.js';

export interface ParcelSize {
  barcode: string;
  length: number | null;
  width: number | null;
  height: number | null;
}

function opening(c: { id: number; width: number; height: number }): { id: number; width: number; height: number } {
  return { id: c.id, width: c.width, height: c.height };
}

/** Places parcels into the cells the marketplace may reserve now. */
export function allocateParcels(
  view: LockerView,
  marketplaceId: string,
  parcels: readonly ParcelSize[],
  options: AllocationOptions,
  ownOrderId?: string,
): Allocation {
  const dimension = (p: ParcelSize) => ({
    ...(p.length !== null ? { length: p.length } : {}),
    ...(p.width !== null ? { width: p.width } : {}),
    ...(p.height !== null ? { height: p.height } : {}),
  });
  return allocate({
    parcels: parcels.map((p) => ({ barcode: p.barcode, dimension: dimension(p) })),
    freeCells: freeCells(view, marketplaceId, ownOrderId).map(opening),
    lockerCells: marketplaceCells(view, marketplaceId).map(opening),
    depth: view.locker.depth,
    options,
  });
}
