/**
 * The order lifecycle against the occupancy view: random walks of what changes a locker's cells
 * and the parcels in them (reservations, cancels, loads, pickups, storage expiry, the locker's
 * cell flags), through the API and the locker's facts. After every step, the view the process
 * keeps for the locker, when it still claims to be current (its version is the database's),
 * must say what the database says: so every path that changes occupancy moves the version, and
 * reservations, which use the view, never book a cell twice.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeCells, loadLockerView } from '../../cloud/src/lockers/occupancy.js';
import { occupancyCacheOf } from '../../cloud/src/lockers/occupancy-cache.js';
import { findLocker } from '../../cloud/src/repositories/lockers.js';
import { testEngines } from '../helpers/cloud-db.js';
import { KEYS, orderBody, startFactsCloud, type FactsCloud } from '../locker-events/facts-cloud.js';

const LOCKER = 1;
const SMART = '/api/v4/auth/delivery/smartorder/create';
const SIZES = [
  { length: 300, width: 200, height: 80 },
  { length: 300, width: 200, height: 150 },
];

type Step =
  | { kind: 'create'; shop: 'shopA' | 'shopB'; parcels: number; size: number }
  | { kind: 'cancel'; pick: number }
  | { kind: 'load'; pick: number; ownCell: boolean }
  | { kind: 'receive'; pick: number }
  | { kind: 'flag'; cell: number; dirty: boolean }
  | { kind: 'expire' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const), shop: fc.constantFrom('shopA' as const, 'shopB' as const), parcels: fc.integer({ min: 1, max: 2 }), size: fc.nat({ max: 1 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('load' as const), pick: fc.nat(), ownCell: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('receive' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('flag' as const), cell: fc.integer({ min: 1, max: 6 }), dirty: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'expire' as const }) },
);

interface Parcel {
  orderId: string;
  externalId: string;
  barcode: string;
  shop: 'shopA' | 'shopB';
  cellId: number | null;
  state: string;
}

describe.each(testEngines())('occupancy views along the lifecycle (%s)', (engine) => {
  let fcl: FactsCloud;
  let n = 0;
  beforeAll(async () => {
    fcl = await startFactsCloud(engine);
  });
  afterAll(async () => fcl?.stop());

  async function parcels(): Promise<Parcel[]> {
    const rows = await fcl.db.db
      .selectFrom('parcels')
      .innerJoin('orders', 'orders.id', 'parcels.order_id')
      .select(['orders.id as orderId', 'orders.external_id as externalId', 'orders.marketplace_id as marketplace', 'parcels.barcode', 'parcels.cell_id as cellId', 'parcels.state'])
      .orderBy('orders.created_at')
      .orderBy('parcels.position')
      .execute();
    return rows.map((r) => ({ ...r, shop: r.marketplace === 'shop-a' ? 'shopA' : 'shopB' }));
  }

  const pickOf = <T>(list: T[], pick: number): T | undefined => (list.length === 0 ? undefined : list[pick % list.length]);

  async function apply(s: Step): Promise<void> {
    const all = await parcels();
    switch (s.kind) {
      case 'create': {
        const externalId = `W-${++n}`;
        const list = Array.from({ length: s.parcels }, (_, i) => ({ barcode: `${externalId}-${i}`, dimension: SIZES[s.size]! }));
        // Delivered the next day, whatever the storage clock's steps did to the date.
        const dateDelivery = new Date(fcl.clock.now() + 86_400_000).toISOString().slice(0, 10);
        const res = await fcl.call('PUT', SMART, { key: KEYS[s.shop], body: orderBody(externalId, { parcels: list, dateDelivery }) });
        expect(res.status).toBe(200);
        return;
      }
      case 'cancel': {
        const p = pickOf(all.filter((x) => x.state === 'pending'), s.pick);
        if (p) await fcl.call('PUT', '/api/v4/auth/delivery/order/place/cancel', { key: KEYS[p.shop], body: { extId: p.externalId, barcode: p.barcode } });
        return;
      }
      case 'load': {
        const p = pickOf(all.filter((x) => x.state === 'pending'), s.pick);
        if (!p) return;
        const cellId = s.ownCell && p.cellId !== null ? p.cellId : 1 + (s.pick % 6);
        await fcl.fact(LOCKER, { type: 'parcel.loaded', orderId: p.orderId, barcode: p.barcode, cellId, grantId: 'g' });
        return;
      }
      case 'receive': {
        const p = pickOf(all.filter((x) => x.state === 'loaded' && x.cellId !== null), s.pick);
        if (p) await fcl.fact(LOCKER, { type: 'parcel.received', orderId: p.orderId, barcode: p.barcode, cellId: p.cellId! });
        return;
      }
      case 'flag':
        await fcl.fact(LOCKER, { type: 'cell.flags', cellId: s.cell, flags: s.dirty ? ['dirty'] : [], reason: s.dirty ? 'door_left_open' : 'recovered' });
        return;
      case 'expire':
        fcl.clock.advance(5 * 86_400_000);
        await fcl.expire();
        return;
    }
  }

  /** The process's view, if it claims to be current, against the database. */
  async function viewMatchesDatabase(): Promise<void> {
    const row = await fcl.db.db.selectFrom('lockers').select('occupancy_version').where('id', '=', LOCKER).executeTakeFirstOrThrow();
    const view = occupancyCacheOf(fcl.db).current(LOCKER, row.occupancy_version);
    if (!view) return;
    const fresh = await loadLockerView(fcl.db.db, (await findLocker(fcl.db.db, LOCKER))!);
    const holders = (v: typeof fresh) => v.holders.map((h) => `${h.cellId}:${h.orderId}:${h.barcode}:${h.parcelState}:${h.orderState}`).sort();
    expect(holders(view)).toEqual(holders(fresh));
    expect(view.cells.map((c) => `${c.id}:${c.flags.join('+')}`)).toEqual(fresh.cells.map((c) => `${c.id}:${c.flags.join('+')}`));
    for (const m of ['shop-a', 'shop-b']) {
      const classes = view.freeClassesFor(m).flatMap((c) => c.ids).sort((a, b) => a - b);
      expect(classes).toEqual(freeCells(fresh, m).map((c) => c.id));
    }
  }

  it('keeps every view that claims to be current equal to the database', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: engine === 'postgres' ? 14 : 22 }), async (steps) => {
        await fcl.reset();
        for (const s of steps) {
          await apply(s);
          await viewMatchesDatabase();
        }
        // No cell holds the reservations of two orders.
        const reserved = (await parcels()).filter((p) => p.state === 'pending' && p.cellId !== null);
        const owners = new Map<number, Set<string>>();
        for (const p of reserved) owners.set(p.cellId!, (owners.get(p.cellId!) ?? new Set()).add(p.orderId));
        for (const [cell, orders] of owners) expect(orders.size, `cell ${cell}`).toBe(1);
      }),
      { numRuns: engine === 'postgres' ? 6 : 12 },
    );
  }, 300_000);
});
