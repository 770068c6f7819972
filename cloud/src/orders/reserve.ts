/** Glue between the locker view (which cells may be used) and the pure allocator (which go where). */
import { allocate, type Allocation, type CellOpening } from '../allocation/allocate.js';
import type { AllocationOptions } from '../allocation/options.js';
import { freeCells, marketplaceCells, type LockerView } from '../lockers/occupancy.js';

export interface ParcelSize {
  barcode: string;
  length: number | null;
  width: number | null;
  height: number | null;
  /** Only an accessible cell will do (stored as 0/1 on parcel rows). */
  accessible?: boolean | number;
}

function opening(c: CellOpening & { accessible: boolean }): CellOpening {
  return { id: c.id, width: c.width, height: c.height, accessible: c.accessible };
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
    parcels: parcels.map((p) => ({ barcode: p.barcode, dimension: dimension(p), accessible: !!p.accessible })),
    freeCells: freeCells(view, marketplaceId, ownOrderId).map(opening),
    lockerCells: marketplaceCells(view, marketplaceId).map(opening),
    depth: view.locker.depth,
    options,
  });
}
