/**
 * Accessible parcels are a hard constraint of allocation: on random lockers and orders, a parcel
 * asking for an accessible cell is never placed in another one, every parcel still ends in exactly
 * one bucket, no cell is given twice, and an order without such parcels is allocated exactly as
 * before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocate, type AllocationRequest } from '../../cloud/src/allocation/allocate.js';
import { allocationRequest } from './arbitraries.js';

/** A random order and locker, with random accessible cells and parcels asking for them. */
const withAccessibility = fc
  .tuple(allocationRequest({ maxParcels: 6, maxCells: 8 }), fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }), fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }))
  .map(([request, cellFlags, parcelFlags]): AllocationRequest => {
    const accessibleIds = new Set(request.lockerCells.filter((_, i) => cellFlags[i % cellFlags.length]).map((c) => c.id));
    const mark = <C extends { id: number }>(c: C) => ({ ...c, accessible: accessibleIds.has(c.id) });
    return {
      ...request,
      parcels: request.parcels.map((p, i) => ({ ...p, accessible: parcelFlags[i % parcelFlags.length]! })),
      freeCells: request.freeCells.map(mark),
      lockerCells: request.lockerCells.map(mark),
    };
  });

describe('accessible parcels in allocation', () => {
  it('never places a parcel that asks for an accessible cell anywhere else', () => {
    fc.assert(
      fc.property(withAccessibility, (request) => {
        const result = allocate(request);
        const accessibleCell = new Set(request.freeCells.filter((c) => c.accessible).map((c) => c.id));
        const free = new Set(request.freeCells.map((c) => c.id));
        const needs = new Set(request.parcels.filter((p) => p.accessible).map((p) => p.barcode));
        const cells = result.cells.map((c) => c.cellId);
        expect(new Set(cells).size).toBe(cells.length);
        for (const c of result.cells) {
          expect(free.has(c.cellId)).toBe(true);
          for (const b of c.barcodes) if (needs.has(b)) expect(accessibleCell.has(c.cellId)).toBe(true);
        }
        const buckets = [...result.cells.flatMap((c) => c.barcodes), ...result.temporarilyRejected, ...result.permanentlyRejected].sort();
        expect(buckets).toEqual(request.parcels.map((p) => p.barcode).sort());
        // Rejected for good: it fits no accessible cell of the locker, which is stated by the locker's cells, not by chance.
        const accessibleLocker = request.lockerCells.filter((c) => c.accessible);
        for (const b of result.permanentlyRejected) {
          if (needs.has(b) && accessibleLocker.length > 0) {
            const parcel = request.parcels.find((p) => p.barcode === b)!;
            const alone = allocate({ ...request, parcels: [parcel], freeCells: accessibleLocker, lockerCells: accessibleLocker });
            expect(alone.permanentlyRejected).toEqual([b]);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('allocates an order without accessible parcels as before, whatever the cells say', () => {
    fc.assert(
      fc.property(withAccessibility, (request) => {
        const plain = { ...request, parcels: request.parcels.map((p) => ({ barcode: p.barcode, dimension: p.dimension })) };
        const unmarked = { ...plain, freeCells: plain.freeCells.map(({ id, width, height }) => ({ id, width, height })), lockerCells: plain.lockerCells.map(({ id, width, height }) => ({ id, width, height })) };
        expect(allocate(plain)).toEqual(allocate(unmarked));
      }),
      { numRuns: 200 },
    );
  });
});
