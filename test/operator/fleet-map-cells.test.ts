/**
 * The fleet at a glance through real HTTP: the fill rate (occupied of usable cells) per locker and
 * fleet-wide, the map's lockers with their coordinates and the sandbox's marked apart, and the
 * flagged-cells list behind the overview's cell tiles, naming the locker, the cell and who set the
 * flag, why and when; a viewer may read them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { type FactsCloud, KEYS, orderBody, startFactsCloud } from '../locker-events/facts-cloud.js';
import { loadIntoLocker } from '../cloud/helpers/locker-facts.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';

describe.each(testEngines())('fleet map, fill rate and flagged cells on %s', (engine) => {
  let fc: FactsCloud;
  beforeAll(async () => {
    fc = await startFactsCloud(engine);
  });
  afterAll(async () => fc.stop());
  beforeEach(async () => {
    await fc.reset();
  });

  const op = { operatorKey: KEYS.operator };
  const get = async (path: string) => {
    const answer = await fc.call('GET', path, op);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };

  it('gives the fill rate per locker and fleet-wide, and every active locker for the map with the sandbox marked', async () => {
    // Locker 1: six cells, 5 dirty, so 5 usable; G-1 reserves one, G-2 is loaded into another.
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('G-1') })).status).toBe(200);
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('G-2') })).status).toBe(200);
    await loadIntoLocker(fc, 'shop-a', 'G-2');
    const list = await get('/operator/lockers?pageSize=10');
    const byId = new Map(list.items.map((l: { lockerId: number }) => [l.lockerId, l]));
    expect(byId.get(1)).toMatchObject({ fill: { occupied: 2, usable: 5, percent: 40 }, latitude: 55.75, longitude: 37.61 });
    expect(byId.get(2)).toMatchObject({ fill: { occupied: 0, usable: 4, percent: 0 } });
    expect(byId.get(4)).toMatchObject({ active: false, fill: { occupied: 0, usable: 0, percent: null } });
    // Fleet-wide: lockers 1, 2 and 3 (broken, yet active: its 2 cells count), locker 4 inactive.
    const overview = await get('/operator/overview');
    expect(overview.fill).toEqual({ occupied: 2, usable: 11, percent: 18 });
    expect(overview.storageEndingToday).toBe(0);
    expect(overview.sandbox.fill).toEqual({ occupied: 0, usable: 0, percent: null });

    await fc.db.db.updateTable('lockers').set({ sandbox: 1 }).where('id', '=', 2).execute();
    const map = await get('/operator/fleet/map');
    expect(map.total).toBe(3);
    expect(map.items.map((l: { lockerId: number; sandbox: boolean }) => [l.lockerId, l.sandbox])).toEqual([[1, false], [2, true], [3, false]]);
    expect(map.items[0]).toMatchObject({ name: 'Locker One', latitude: 55.75, longitude: 37.61, online: false, openAlerts: 0, fill: { percent: 40 } });
    expect((await get('/operator/overview')).sandbox.fill).toEqual({ occupied: 0, usable: 4, percent: 0 });
    // Bounded: the limit cuts the items, the total still counts them all.
    expect(await get('/operator/fleet/map?limit=1')).toMatchObject({ total: 3, items: [{ lockerId: 1 }] });
    expect((await fc.call('GET', '/operator/fleet/map?limit=10001', op)).status).toBe(400);
  });

  it('lists the flagged cells behind each tile with who set the flag, why and when', async () => {
    expect((await fc.call('PUT', '/operator/postamats/2/cells/3/flags', { ...op, body: { blocked: true, reason: 'hinge', note: 'left door' } })).status).toBe(200);
    expect((await fc.call('PUT', '/operator/postamats/1/cells/2/flags', { ...op, body: { faulty: true, reason: 'lock' } })).status).toBe(200);
    const overview = await get('/operator/overview');
    const blocked = await get('/operator/cells?flag=blocked');
    expect(blocked).toMatchObject({ total: overview.cells.blocked, page: 1, pageSize: 50 });
    expect(blocked.items).toEqual([
      {
        lockerId: 2,
        lockerName: 'Locker Two',
        cellId: 3,
        size: '400x200',
        flags: ['blocked'],
        flagMarks: [{ flag: 'blocked', setBy: 'ops', reason: 'hinge', note: 'left door', setAt: new Date(fc.clock.now()).toISOString() }],
      },
    ]);
    // needs_inspection: faulty, dirty or needs_inventory, as the overview's tile counts (cell 5's dirty flag came with the fleet file: no mark).
    const inspection = await get('/operator/cells?flag=needs_inspection');
    expect(inspection.total).toBe(overview.cells.needsInspection);
    expect(inspection.items.map((c: { lockerId: number; cellId: number; flags: string[]; flagMarks: unknown[] }) => [c.lockerId, c.cellId, c.flags, c.flagMarks.length])).toEqual([
      [1, 2, ['faulty'], 1],
      [1, 5, ['dirty'], 0],
    ]);
    expect((await get('/operator/cells?flag=dirty')).items).toMatchObject([{ lockerId: 1, cellId: 5 }]);
    // Paged, the total kept past the end.
    expect(await get('/operator/cells?flag=needs_inspection&pageSize=1&page=2')).toMatchObject({ total: 2, items: [{ cellId: 5 }] });
    expect(await get('/operator/cells?flag=needs_inspection&pageSize=1&page=9')).toMatchObject({ total: 2, items: [] });
    // The sandbox apart.
    expect((await get('/operator/cells?flag=blocked&sandbox=true')).total).toBe(0);
    await fc.db.db.updateTable('lockers').set({ sandbox: 1 }).where('id', '=', 2).execute();
    expect((await get('/operator/cells?flag=blocked')).total).toBe(0);
    expect((await get('/operator/cells?flag=blocked&sandbox=true')).items).toMatchObject([{ lockerId: 2, cellId: 3 }]);
    // Hostile input: an unknown flag, in the envelope, in English when asked.
    const bad = await fc.call('GET', '/operator/cells?flag=broken', { ...op, headers: { 'accept-language': 'en' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ resultCode: expect.any(Number), message: expect.any(String) });
  });
});
