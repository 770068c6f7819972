import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocate, type AllocationRequest, type CellOpening } from '../../cloud/src/allocation/allocate.js';
import { allocationRequest } from './arbitraries.js';
import { allocationProblems, exhaustiveBest, score } from './reference.js';

const DEPTH = 600;
const cells = (firstId: number, count: number, width: number, height: number): CellOpening[] =>
  Array.from({ length: count }, (_, i) => ({ id: firstId + i, width, height }));
// A small locker: 100 mm, 200 mm and 400 mm high cells, all 400 mm wide.
const SMALL = cells(1, 3, 400, 100);
const MEDIUM = cells(11, 2, 400, 200);
const LARGE = cells(21, 1, 400, 400);
const LOCKER = [...SMALL, ...MEDIUM, ...LARGE];

const parcel = (barcode: string, length: number, width: number, height: number) => ({
  barcode,
  dimension: { length, width, height },
});
const request = (parcels: AllocationRequest['parcels'], freeCells = LOCKER, options?: AllocationRequest['options']) => ({
  parcels,
  freeCells,
  lockerCells: LOCKER,
  depth: DEPTH,
  options,
});

describe('allocate: the outcomes of the spec', () => {
  it('places every parcel when cells are free', () => {
    // Too long to share a cell's depth, and one 400 mm cell would be larger than two small ones.
    const result = allocate(request([parcel('A', 300, 200, 80), parcel('B', 550, 380, 150)]));
    expect(result).toEqual({
      cells: [
        { cellId: 1, barcodes: ['A'] },
        { cellId: 11, barcodes: ['B'] },
      ],
      temporarilyRejected: [],
      permanentlyRejected: [],
    });
  });

  it('places some and rejects the rest temporarily when capacity runs short', () => {
    const big = (b: string) => parcel(b, 390, 390, 350);
    const result = allocate(request([big('A'), big('B')]));
    expect(result.cells).toEqual([{ cellId: 21, barcodes: ['A'] }]);
    expect(result.temporarilyRejected).toEqual(['B']);
    expect(result.permanentlyRejected).toEqual([]);
  });

  it('rejects permanently what fits no cell of the locker even rotated', () => {
    const result = allocate(request([parcel('A', 700, 100, 100), parcel('B', 500, 500, 500)]));
    expect(result).toEqual({ cells: [], temporarilyRejected: [], permanentlyRejected: ['A', 'B'] });
  });

  it('mixes the three outcomes', () => {
    const freeCells = [...SMALL];
    const result = allocate(request([parcel('T', 390, 390, 350), parcel('P', 650, 10, 10), parcel('R', 100, 100, 100)], freeCells));
    expect(result).toEqual({
      cells: [{ cellId: 1, barcodes: ['R'] }],
      temporarilyRejected: ['T'],
      permanentlyRejected: ['P'],
    });
  });

  it('rejects everything temporarily when no fitting cell is free', () => {
    const result = allocate(request([parcel('A', 100, 100, 100), parcel('B', 390, 390, 350)], []));
    expect(result).toEqual({ cells: [], temporarilyRejected: ['A', 'B'], permanentlyRejected: [] });
  });
});

describe('allocate: choosing cells', () => {
  it('rotates a parcel to fit and takes the smallest cell that holds it', () => {
    // 550 mm long goes along the depth; 150 mm thick needs at least a 200 mm cell.
    const result = allocate(request([parcel('A', 150, 550, 390)]));
    expect(result.cells).toEqual([{ cellId: 11, barcodes: ['A'] }]);
  });

  it('lets parcels of the order share a cell when that keeps larger cells free', () => {
    const shoe = (b: string) => parcel(b, 330, 200, 90);
    const result = allocate(request([shoe('A'), shoe('B'), shoe('C'), shoe('D')]));
    // Three fit one behind the other in a 100 mm cell; the fourth takes another small cell.
    expect(result.cells).toEqual([
      { cellId: 1, barcodes: ['A', 'B', 'C'] },
      { cellId: 2, barcodes: ['D'] },
    ]);
  });

  it('shares cells to place more parcels than there are free cells', () => {
    const shoe = (b: string) => parcel(b, 330, 200, 90);
    const result = allocate(request([shoe('A'), shoe('B'), shoe('C')], [SMALL[0]!]));
    expect(result.cells).toEqual([{ cellId: 1, barcodes: ['A', 'B', 'C'] }]);
  });

  it('rejects the largest parcel when that lets more of the others in', () => {
    // Two free 200 mm cells. The pallet fills one alone; the four flat parcels fit two to a cell.
    const flat = (b: string) => parcel(b, 390, 290, 190);
    const result = allocate(request([parcel('PALLET', 390, 590, 190), flat('A'), flat('B'), flat('C'), flat('D')], MEDIUM));
    expect(result.cells).toEqual([
      { cellId: 11, barcodes: ['A', 'B'] },
      { cellId: 12, barcodes: ['C', 'D'] },
    ]);
    expect(result.temporarilyRejected).toEqual(['PALLET']);
  });

  it('takes a larger cell for one parcel when the other fits only the smaller cell', () => {
    // A 400x100 cell and a larger 300x200 one. The bigger parcel A fits both, the 310 mm wide W
    // only the first: A, decided first, must not take the small cell.
    const freeCells = [
      { id: 1, width: 400, height: 100 },
      { id: 2, width: 300, height: 200 },
    ];
    const result = allocate({ ...request([parcel('A', 590, 290, 95), parcel('W', 550, 310, 30)], freeCells), lockerCells: freeCells });
    expect(result.cells).toEqual([
      { cellId: 1, barcodes: ['W'] },
      { cellId: 2, barcodes: ['A'] },
    ]);
  });

  it('does not depend on the order in which cells are listed', () => {
    fc.assert(
      fc.property(allocationRequest({ maxParcels: 8, maxCells: 12 }), fc.infiniteStream(fc.nat()), (req, noise) => {
        const shuffled = [...req.freeCells]
          .map((c) => ({ c, k: noise.next().value }))
          .sort((a, b) => a.k - b.k)
          .map(({ c }) => c);
        expect(allocate({ ...req, freeCells: shuffled, lockerCells: [...req.lockerCells].reverse() })).toEqual(allocate(req));
      }),
      { numRuns: 300 },
    );
  });
});

describe('allocate: parcels of unknown size', () => {
  it('sizes missing extents from the default box and gives such a parcel a cell of its own', () => {
    const result = allocate(request([{ barcode: 'U', dimension: null }, { barcode: 'H', dimension: { height: 150 } }, parcel('K', 100, 100, 50)]));
    expect(result.cells).toEqual([
      { cellId: 1, barcodes: ['U'] },
      { cellId: 2, barcodes: ['H'] },
      { cellId: 3, barcodes: ['K'] },
    ]);
  });

  it('lets them share when configured, and honours a larger default box', () => {
    const parcels = [{ barcode: 'U', dimension: null }, parcel('K', 100, 100, 50)];
    expect(allocate(request(parcels, LOCKER, { unknownSizeSharesCell: true })).cells).toEqual([{ cellId: 1, barcodes: ['U', 'K'] }]);
    const tall = { defaultDimension: { length: 300, width: 300, height: 300 } };
    expect(allocate(request(parcels, LOCKER, tall)).cells).toEqual([
      { cellId: 1, barcodes: ['K'] },
      { cellId: 21, barcodes: ['U'] },
    ]);
    const huge = { defaultDimension: { length: 900, width: 900, height: 900 } };
    expect(allocate(request(parcels, LOCKER, huge)).permanentlyRejected).toEqual(['U']);
  });

  it('refuses options outside their range', () => {
    expect(() => allocate(request([], LOCKER, { exactSearchMaxParcels: 40 }))).toThrow();
  });
});

describe('allocate: properties on random lockers', () => {
  it('never overfills a cell, puts each parcel in exactly one bucket and classifies rejections right', () => {
    fc.assert(
      fc.property(allocationRequest({ maxParcels: 14, maxCells: 16 }), (req) => {
        expect(allocationProblems(req, allocate(req))).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  it('finds the optimum of an exhaustive search: most parcels placed, then least cell volume', () => {
    fc.assert(
      fc.property(allocationRequest({ maxParcels: 6, maxCells: 10 }), (req) => {
        expect(score(req, allocate(req))).toEqual(exhaustiveBest(req));
      }),
      { numRuns: 400 },
    );
  });

  it('finds the optimum of an exhaustive search when cells are scarce', () => {
    fc.assert(
      fc.property(allocationRequest({ maxParcels: 7, maxCells: 4, maxSizes: 3 }), (req) => {
        expect(score(req, allocate(req))).toEqual(exhaustiveBest(req));
      }),
      { numRuns: 600 },
    );
  });
});

describe('allocate: orders above the exact-search limit', () => {
  const greedy = { exactSearchMaxParcels: 0 };

  it('stays valid and leaves no rejected parcel that an unused cell or a used one could still take', () => {
    fc.assert(
      fc.property(allocationRequest({ maxParcels: 20, maxCells: 16 }), (req) => {
        const result = allocate({ ...req, options: greedy });
        expect(allocationProblems(req, result)).toEqual([]);
        const used = new Map(result.cells.map((c) => [c.cellId, c.barcodes]));
        const byBarcode = new Map(req.parcels.map((p) => [p.barcode, p]));
        for (const barcode of result.temporarilyRejected) {
          for (const cell of req.freeCells) {
            const withIt = { cellId: cell.id, barcodes: [...(used.get(cell.id) ?? []), barcode] };
            const single = {
              ...req,
              parcels: withIt.barcodes.map((b) => byBarcode.get(b)!),
              freeCells: [cell],
            };
            // The one-cell request places all of them only if they really fit together.
            expect(score(single, allocate(single)).placed).toBeLessThan(withIt.barcodes.length);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('never beats the exact search', () => {
    fc.assert(
      fc.property(allocationRequest({ maxParcels: 10, maxCells: 14 }), (req) => {
        const exact = score(req, allocate(req));
        const heuristic = score(req, allocate({ ...req, options: greedy }));
        expect(heuristic.placed).toBeLessThanOrEqual(exact.placed);
        if (heuristic.placed === exact.placed) expect(heuristic.volume).toBeGreaterThanOrEqual(exact.volume);
      }),
      { numRuns: 300 },
    );
  });
});
