/** Glue between the locker view (which cells may be used) and the pure allocator (which go where). */
import { allocate, type Allocation, type CellOpening } from '../allocation/allocate.js';
import type { AllocationOptions } from '../allocation/options.js';
import type { LockerOccupancy } from '../lockers/locker-occupancy.js';
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

function toPlace(p: ParcelSize) {
  const dimension = {
    ...(p.length !== null ? { length: p.length } : {}),
    ...(p.width !== null ? { width: p.width } : {}),
    ...(p.height !== null ? { height: p.height } : {}),
  };
  return { barcode: p.barcode, dimension, accessible: !!p.accessible };
}

/** allocateParcels from an occupancy view's classes: the cost grows with parcels and size classes, not cells. */
export function allocateFromView(view: LockerOccupancy, marketplaceId: string, parcels: readonly ParcelSize[], options: AllocationOptions): Allocation {
  return allocate({
    parcels: parcels.map(toPlace),
    freeClasses: view.freeClassesFor(marketplaceId),
    lockerShapes: view.shapesFor(marketplaceId),
    depth: view.locker.depth,
    options,
  });
}

/** Places parcels into the cells the marketplace may reserve now. */
export function allocateParcels(
  view: LockerView,
  marketplaceId: string,
  parcels: readonly ParcelSize[],
  options: AllocationOptions,
  ownOrderId?: string,
): Allocation {
  return allocate({
    parcels: parcels.map(toPlace),
    freeCells: freeCells(view, marketplaceId, ownOrderId).map(opening),
    lockerCells: marketplaceCells(view, marketplaceId).map(opening),
    depth: view.locker.depth,
    options,
  });
}
