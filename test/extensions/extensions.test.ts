/**
 * The extensions beyond the contract, through real HTTP on each engine: `nearestLockers` on code
 * 32, parcels asking for an accessible cell, capacity for several lockers at once; and that each
 * is described in the OpenAPI document. A client that sends none of them sees the contract.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FleetInput } from '../../cloud/src/fleet/fleet-schema.js';
import { haversineMeters } from '../../cloud/src/orders/nearest-lockers.js';
import { KEYS, orderBody, testFleet } from '../cloud/helpers/fleet-fixtures.js';
import { type TestCloud, startTestCloud } from '../cloud/helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';

const V4 = '/api/v4/auth';
const SMALL = { length: 300, width: 200, height: 80 };
const LARGE = { length: 390, width: 390, height: 390 };

const AT = {
  1: { latitude: 55.75, longitude: 37.61 },
  2: { latitude: 55.76, longitude: 37.63 },
  5: { latitude: 55.8, longitude: 37.7 },
} as const;

/**
 * The test fleet with coordinates apart, locker 5 further away with two large cells for everyone,
 * and locker 1's cells: 1 too high for a wheelchair (bottomMm 1500), 2 low enough (300), 3 flagged
 * accessible, 4 without a height (not accessible).
 */
function extensionFleet(): FleetInput {
  const fleet = testFleet();
  const [one, two] = fleet.lockers;
  Object.assign(one!.location, AT[1]);
  Object.assign(two!.location, AT[2]);
  one!.cells[0]!.bottomMm = 1500;
  one!.cells[1]!.bottomMm = 300;
  one!.cells[2]!.accessible = true;
  fleet.lockers.push({
    id: 5,
    name: 'Locker Five',
    depth: 500,
    location: { id: 5, city: 'Moscow', street: 'Far street', house: '5', fullAddress: 'Moscow, Far street, 5', ...AT[5] },
    cells: [
      { id: 1, width: 400, height: 400, board: 0, lock: 1 },
      { id: 2, width: 400, height: 400, board: 0, lock: 2 },
    ],
  });
  return fleet;
}

describe.each(testEngines())('extensions beyond the contract on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine, { fleet: extensionFleet() });
  });
  afterAll(async () => tc.stop());
  beforeEach(async () => {
    tc.writeFleet(extensionFleet());
    await tc.reset();
    tc.writeFleet(extensionFleet());
    await tc.cloud.reloadFleet();
  });

  const put = (path: string, body: unknown, key: string = KEYS.shopA) => tc.call('PUT', `${V4}${path}`, { key, body });
  const parcels = (id: string, list: Record<string, unknown>[]) => list.map((p, i) => ({ barcode: `${id}-P${i + 1}`, ...p }));

  describe('nearestLockers on code 32', () => {
    it('lists the nearest lockers of the marketplace where the parcels fit, nearest first', async () => {
      expect((await put('/delivery/smartorder/create', orderBody('FILL', { parcels: parcels('FILL', [{ dimension: LARGE }]) }))).body.reserved).toHaveLength(1);
      const refused = await put('/delivery/order/create', orderBody('NEAR', { parcels: parcels('NEAR', [{ dimension: LARGE }]) }));
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({
        message: 'Not cells for all parcels',
        resultCode: 32,
        nearestLockers: [
          { postamatId: 2, name: 'Locker Two', fullAddress: 'Yekaterinburg, Test street, 2', distanceMeters: Math.round(haversineMeters(AT[1], AT[2])) },
          { postamatId: 5, name: 'Locker Five', fullAddress: 'Moscow, Far street, 5', distanceMeters: Math.round(haversineMeters(AT[1], AT[5])) },
        ],
      });
      // shop-b may not use locker 2's large cell (shop-a's segment).
      const forB = await put('/delivery/order/create', orderBody('NEAR-B', { parcels: parcels('NEAR-B', [{ dimension: LARGE }, { dimension: LARGE }]) }), KEYS.shopB);
      expect(forB.body.nearestLockers.map((l: { postamatId: number }) => l.postamatId)).toEqual([5]);
    });

    it('also on order/update, and not at all when no other locker has room', async () => {
      expect((await put('/delivery/order/create', orderBody('UPD'))).status).toBe(200);
      const refused = await put('/delivery/order/update', { externalId: 'UPD', parcels: parcels('UPD', [{ dimension: SMALL }, { dimension: LARGE }, { dimension: LARGE }]) });
      expect(refused.body.resultCode).toBe(32);
      expect(refused.body.nearestLockers.map((l: { postamatId: number }) => l.postamatId)).toEqual([5]);
      const huge = await put('/delivery/order/create', orderBody('HUGE', { parcels: parcels('HUGE', [{ dimension: { length: 900, width: 900, height: 900 } }]) }));
      expect(huge.body).toEqual({ message: 'Not cells for all parcels', resultCode: 32 });
    });
  });

  describe('accessible parcels', () => {
    it('go only into accessible cells; others as before', async () => {
      const res = await put(
        '/delivery/smartorder/create',
        orderBody('ACC', {
          parcels: parcels('ACC', [
            { dimension: SMALL, accessible: true },
            { dimension: SMALL },
            { dimension: SMALL, accessible: true },
            { dimension: SMALL, accessible: true },
            { dimension: LARGE, accessible: true },
          ]),
        }),
      );
      // The three small accessible parcels share medium cell 3 (least volume), never small cell 1.
      expect(res.body).toEqual({
        reserved: [
          { cellId: 1, externalId: 'ACC', barcodes: ['ACC-P2'] },
          { cellId: 3, externalId: 'ACC', barcodes: ['ACC-P1', 'ACC-P3', 'ACC-P4'] },
        ],
        temporarilyRejectedItems: [],
        permanentlyRejectedItems: ['ACC-P5'],
        toReturn: [],
      });
      // With cell 3 taken, the next accessible parcel gets cell 2, the one after none.
      const next = await put('/delivery/smartorder/create', orderBody('ACC-2', { parcels: parcels('ACC-2', [{ dimension: SMALL, accessible: true }]) }));
      expect(next.body.reserved).toEqual([{ cellId: 2, externalId: 'ACC-2', barcodes: ['ACC-2-P1'] }]);
      const none = await put('/delivery/smartorder/create', orderBody('ACC-3', { parcels: parcels('ACC-3', [{ dimension: SMALL, accessible: true }]) }));
      expect(none.body).toMatchObject({ reserved: [], temporarilyRejectedItems: ['ACC-3-P1'] });
      const rows = await tc.db.db.selectFrom('parcels').select(['barcode', 'accessible']).orderBy('position').execute();
      expect(rows.filter((r) => r.barcode.startsWith('ACC-P')).map((r) => r.accessible)).toEqual([1, 0, 1, 1, 1]);
    });

    it('keep the constraint when an order is updated', async () => {
      expect((await put('/delivery/smartorder/create', orderBody('ACC-U'))).body.reserved).toEqual([{ cellId: 1, externalId: 'ACC-U', barcodes: ['ACC-U-P1'] }]);
      const updated = await put('/delivery/order/update', { externalId: 'ACC-U', parcels: parcels('ACC-U', [{ dimension: SMALL, accessible: true }]) });
      expect(updated.body.reserved).toEqual([{ cellId: 2, externalId: 'ACC-U', barcodes: ['ACC-U-P1'] }]);
    });
  });

  describe('capacity of several lockers', () => {
    const capacity = (body: Record<string, unknown>) => tc.call('POST', `${V4}/postamat/capacity`, { key: KEYS.shopA, body });
    const size = { deliveryDate: '2030-03-05', parcelSize: SMALL };

    it('answers each locker as the one-locker form does, keyed by postamatId', async () => {
      const one = await capacity({ postamatId: 1, ...size });
      const two = await capacity({ postamatId: 2, ...size });
      const both = await capacity({ postamatIds: [1, 2, 1], ...size });
      expect(both).toEqual({ status: 200, body: { postamats: { 1: one.body, 2: two.body } } });
    });

    it('refuses both forms at once, none, too many lockers, or an unknown one (code 3)', async () => {
      for (const body of [
        { postamatId: 1, postamatIds: [2], ...size },
        size,
        { postamatIds: Array.from({ length: 21 }, (_, i) => i + 1), ...size },
        { postamatIds: [], ...size },
        { postamatIds: [1, 99], ...size },
      ]) {
        const res = await capacity(body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.resultCode).toBe(3);
      }
    });
  });

  it('describes every extension in the OpenAPI document', async () => {
    const doc = JSON.stringify((await tc.call('GET', '/docs/json')).body);
    for (const name of ['nearestLockers', 'postamatIds', 'accessible', 'idempotency-key']) expect(doc, name).toContain(name);
    expect(doc).toContain('Extension beyond the contract');
  });
});
