/** Random lockers and orders at a scale where parcels sometimes share cells and sometimes fit nowhere. */
import fc from 'fast-check';
import type { AllocationRequest, CellOpening, ParcelToPlace } from '../../cloud/src/allocation/allocate.js';

// Mostly parcels that fit somewhere, some that fit nowhere.
const extent = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 30 }).map((x) => x * 10) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 70 }).map((x) => x * 10) },
);
const maybeExtent = fc.option(extent, { nil: undefined });

const dimension: fc.Arbitrary<ParcelToPlace['dimension']> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ length: extent, width: extent, height: extent }) },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.record({ length: maybeExtent, width: maybeExtent, height: maybeExtent }) },
);

const opening = fc.record({
  width: fc.integer({ min: 4, max: 10 }).map((x) => x * 50),
  height: fc.integer({ min: 2, max: 10 }).map((x) => x * 50),
});

export interface Scale {
  maxParcels: number;
  maxCells: number;
  maxSizes?: number;
}

export function allocationRequest({ maxParcels, maxCells, maxSizes = 4 }: Scale): fc.Arbitrary<AllocationRequest> {
  return fc
    .record({
      dimensions: fc.array(dimension, { minLength: 0, maxLength: maxParcels }),
      sizes: fc.array(opening, { minLength: 1, maxLength: maxSizes }),
      // Per cell: which size, and whether it is free now.
      cells: fc.array(fc.record({ size: fc.nat(), free: fc.boolean() }), { minLength: 1, maxLength: maxCells + 4 }),
      firstId: fc.integer({ min: 1, max: 500 }),
      depth: fc.integer({ min: 4, max: 14 }).map((x) => x * 50),
    })
    .map(({ dimensions, sizes, cells, firstId, depth }) => {
      const lockerCells: CellOpening[] = cells.map((c, i) => ({ id: firstId + i * 7, ...sizes[c.size % sizes.length]! }));
      const freeCells = lockerCells.filter((_, i) => cells[i]!.free).slice(0, maxCells);
      return {
        parcels: dimensions.map((d, i) => ({ barcode: `P${i}`, dimension: d })),
        freeCells,
        lockerCells,
        depth,
      };
    });
}
