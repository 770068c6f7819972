/**
 * The occupancy view's index (lockers/locker-occupancy.ts) says what the rules of occupancy.ts
 * say, for random lockers: segments, flags, reservations, loaded parcels and parcels awaiting
 * return of several marketplaces; also after the view records reservations of its own. And a
 * reservation from the view's classes is the allocation the cell list gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocate } from '../../cloud/src/allocation/allocate.js';
import { DEFAULT_ALLOCATION_OPTIONS } from '../../cloud/src/allocation/options.js';
import { LockerOccupancy } from '../../cloud/src/lockers/locker-occupancy.js';
import { freeCells, marketplaceCells } from '../../cloud/src/lockers/occupancy.js';
import { allocateFromView, allocateParcels } from '../../cloud/src/orders/reserve.js';
import type { CellHolder } from '../../cloud/src/repositories/occupancy.js';
import type { Cell, Locker } from '../../cloud/src/repositories/lockers.js';
import { CellFlag, OrderState, ParcelState } from '../../shared/src/enums.js';

const MARKETPLACES = ['shop-a', 'shop-b', 'shop-c'] as const;

const locker = (usable: boolean): Locker => ({
  id: 7,
  name: 'L',
  timezone: 'Europe/Moscow',
  depth: 500,
  active: usable,
  broken: false,
  scanner: false,
  profile: {} as Locker['profile'],
  sandbox: false,
  updatedAt: 0,
});

const cellArb = fc.record({
  width: fc.constantFrom(300, 400),
  height: fc.constantFrom(100, 200, 400),
  accessible: fc.boolean(),
  segment: fc.option(fc.subarray([...MARKETPLACES], { minLength: 1 }), { nil: null, freq: 3 }),
  flags: fc.option(fc.constantFrom([CellFlag.Dirty], [CellFlag.Blocked]), { nil: [] as CellFlag[], freq: 5 }),
});

const holderArb = (cells: number) =>
  fc.record({
    cell: fc.nat({ max: cells - 1 }),
    order: fc.nat({ max: 5 }),
    marketplace: fc.constantFrom(...MARKETPLACES),
    kind: fc.constantFrom('reserved', 'loaded', 'awaitingReturn', 'awaitingReturn'),
  });

type LockerInput = { cells: CellInput[]; holders: HolderInput[]; usable: boolean };
type CellInput = typeof cellArb extends fc.Arbitrary<infer T> ? T : never;
type HolderInput = ReturnType<typeof holderArb> extends fc.Arbitrary<infer T> ? T : never;

const lockerArb: fc.Arbitrary<LockerInput> = fc
  .array(cellArb, { minLength: 1, maxLength: 24 })
  .chain((cells) => fc.record({ cells: fc.constant(cells), holders: fc.array(holderArb(cells.length), { maxLength: 12 }), usable: fc.boolean() }));

function build({ cells, holders, usable }: LockerInput): LockerOccupancy {
  const rows: Cell[] = cells.map((c, i) => ({ lockerId: 7, id: i * 3 + 1, bus: 'a', board: 0, lock: i + 1, ...c, flags: [...c.flags] }));
  const held: CellHolder[] = holders.map((h, i) => {
    // An order belongs to one marketplace and has one state: the state follows from its first holder.
    const orderState = h.kind === 'reserved' ? OrderState.New : h.kind === 'loaded' ? OrderState.CourierLoaded : OrderState.AwaitingReturn;
    return {
      cellId: rows[h.cell]!.id,
      orderId: `${h.marketplace}-${h.order}-${orderState}`,
      externalId: `E-${h.order}`,
      marketplaceId: h.marketplace,
      orderState,
      parcelState: h.kind === 'reserved' ? ParcelState.Pending : h.kind === 'loaded' ? ParcelState.Loaded : ParcelState.AwaitingReturn,
      barcode: `B-${i}`,
      holdUntil: null,
    };
  });
  return new LockerOccupancy(locker(usable), 1, rows, held);
}

function freeIdsFromClasses(view: LockerOccupancy, marketplaceId: string): number[] {
  return view
    .freeClassesFor(marketplaceId)
    .flatMap((c) => c.ids)
    .sort((a, b) => a - b);
}

describe('the occupancy view', () => {
  it('keeps in its classes exactly the cells freeCells names, for every marketplace', () => {
    fc.assert(
      fc.property(lockerArb, (input) => {
        const view = build(input);
        for (const m of MARKETPLACES) {
          expect(freeIdsFromClasses(view, m)).toEqual(freeCells(view, m).map((c) => c.id));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('stays right after reservations recorded in it, and allocates from classes as from the cell list', () => {
    const parcel = fc.record({
      length: fc.integer({ min: 50, max: 450 }),
      width: fc.integer({ min: 50, max: 350 }),
      height: fc.integer({ min: 20, max: 350 }),
      accessible: fc.boolean(),
    });
    fc.assert(
      fc.property(lockerArb, fc.array(fc.tuple(fc.constantFrom(...MARKETPLACES), fc.array(parcel, { minLength: 1, maxLength: 3 })), { maxLength: 6 }), (input, orders) => {
        const view = build(input);
        orders.forEach(([marketplaceId, parcels], i) => {
          const sizes = parcels.map((p, j) => ({ barcode: `N${i}-${j}`, ...p }));
          const fromClasses = allocateFromView(view, marketplaceId, sizes, DEFAULT_ALLOCATION_OPTIONS);
          expect(fromClasses).toEqual(allocateParcels(view, marketplaceId, sizes, DEFAULT_ALLOCATION_OPTIONS));
          view.reserve({ orderId: `new-${i}`, externalId: `N${i}`, marketplaceId, cells: fromClasses.cells }, view.version + 1);
          for (const m of MARKETPLACES) expect(freeIdsFromClasses(view, m)).toEqual(freeCells(view, m).map((c) => c.id));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('gives a one-parcel order the cell the general search gives it', () => {
    fc.assert(
      fc.property(lockerArb, fc.constantFrom(...MARKETPLACES), fc.record({ length: fc.integer({ min: 1, max: 600 }), width: fc.integer({ min: 1, max: 450 }), height: fc.integer({ min: 1, max: 450 }) }), fc.boolean(), (input, m, dimension, accessible) => {
        const view = build(input);
        const request = { freeCells: freeCells(view, m), lockerCells: marketplaceCells(view, m), depth: 500 };
        const one = allocate({ ...request, parcels: [{ barcode: 'P', dimension, accessible }] });
        // The same parcel beside one that fits nowhere takes the general passes, which place it alike.
        const general = allocate({ ...request, parcels: [{ barcode: 'P', dimension, accessible }, { barcode: 'X', dimension: { length: 9_000, width: 9_000, height: 9_000 } }] });
        expect(one.cells).toEqual(general.cells);
        expect(one.temporarilyRejected).toEqual(general.temporarilyRejected);
        expect(one.permanentlyRejected).toEqual(general.permanentlyRejected.filter((b) => b === 'P'));
      }),
      { numRuns: 500 },
    );
  });
});
