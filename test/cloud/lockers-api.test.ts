import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KEYS, orderBody, testFleet } from './helpers/fleet-fixtures.js';
import { loadIntoLocker } from './helpers/locker-facts.js';
import { type TestCloud, startTestCloud } from './helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';
const CAPACITY = '/api/v4/auth/postamat/capacity';
const AVAILABLE = '/api/v4/auth/postamat/available';
const BY_ID = '/api/v4/auth/postamat/get-by-id';
const SMALL = { length: 300, width: 200, height: 80 };
const LARGE = { length: 450, width: 390, height: 390 };

describe.each(testEngines())('locker operations on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine, { config: { capacityDays: 3, dayOffsDays: 5 } });
  });
  afterAll(async () => tc.stop());
  beforeEach(async () => tc.reset());

  const as = { key: KEYS.shopA };
  const reserve = (id: string, dimension: Record<string, number>) =>
    tc.call('PUT', SMART, { ...as, body: orderBody(id, { parcels: [{ barcode: `${id}-P1`, dimension }] }) });
  const capacity = (postamatId: number, parcelSize: Record<string, number>, key: string = KEYS.shopA) =>
    tc.call('POST', CAPACITY, { key, body: { postamatId, deliveryDate: '2030-03-05', parcelSize } });

  describe('capacity', () => {
    it('covers CAPACITY_DAYS dates from deliveryDate: free fitting cells and all cells of the marketplace', async () => {
      const all = { total: 4, totalCapacity: 5, isBroken: false }; // cells 1-4 free; 5 is dirty; 6 is shop-b's
      expect(await capacity(1, {})).toEqual({ status: 200, body: { '2030-03-05': all, '2030-03-06': all, '2030-03-07': all } });
      expect((await capacity(1, LARGE)).body['2030-03-05']).toEqual({ total: 1, totalCapacity: 5, isBroken: false });
      expect((await capacity(1, { length: 1000 })).body['2030-03-05'].total).toBe(0);
      expect((await capacity(1, {}, KEYS.shopB)).body['2030-03-05']).toEqual({ total: 5, totalCapacity: 6, isBroken: false });
    });

    it('counts a reservation on every date and a loaded parcel until its storage ends', async () => {
      await reserve('K-1', LARGE);
      expect(Object.values((await capacity(1, LARGE)).body).map((r) => (r as { total: number }).total)).toEqual([0, 0, 0]);
      await reserve('K-2', SMALL);
      await loadIntoLocker(tc, 'shop-a', 'K-2'); // in cell 1 until Thursday 2030-03-07 12:00
      const totals = (await capacity(1, {})).body;
      expect([totals['2030-03-05'].total, totals['2030-03-06'].total, totals['2030-03-07'].total]).toEqual([2, 2, 2]);
      const later = await tc.call('POST', CAPACITY, { ...as, body: { postamatId: 1, deliveryDate: '2030-03-08', parcelSize: {} } });
      expect(later.body['2030-03-08'].total).toBe(3);
    });

    it('reports a broken locker with no free cells', async () => {
      expect((await capacity(3, {})).body['2030-03-05']).toEqual({ total: 0, totalCapacity: 2, isBroken: true });
    });

    it('clamps counts to the int8 range', async () => {
      const fleet = testFleet();
      const cells = Array.from({ length: 200 }, (_, i) => ({ id: i + 1, width: 400, height: 100, board: Math.floor(i / 48), lock: (i % 48) + 1 }));
      fleet.lockers.push({ id: 9, name: 'Wall', depth: 500, location: { id: 9, city: 'Moscow', street: 's', house: '9', latitude: 55, longitude: 37, fullAddress: 'x' }, cells });
      tc.writeFleet(fleet);
      await tc.cloud.reloadFleet();
      expect((await capacity(9, {})).body['2030-03-05']).toEqual({ total: 127, totalCapacity: 127, isBroken: false });
    });
  });

  describe('available', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read loosely
    const list = async (query = '', key: string = KEYS.shopA) => (await tc.call('GET', `${AVAILABLE}${query}`, { key })).body.postamats as any[];

    it('lists active lockers the marketplace may use, filtered by scanner', async () => {
      expect((await list()).map((p) => p.id)).toEqual([1, 2, 3]);
      expect((await list('?scanner=true')).map((p) => p.id)).toEqual([2, 3]);
      expect((await list('?scanner=false')).map((p) => p.id)).toEqual([1]);
      const [one] = await list();
      expect(one).toEqual({
        id: 1,
        name: 'Locker One',
        workTime: 'Mon-Sat 08-22',
        find: 'By the lifts',
        photos: [],
        location: expect.objectContaining({ id: 1, city: 'Moscow' }),
        cellSizes: [
          { id: 1, width: 400, height: 100 },
          { id: 2, width: 400, height: 200 },
          { id: 3, width: 400, height: 400 },
        ],
        machineEquipment: { barcodeScannerEquip: false },
        dayOffs: [],
        mos_regestry_id: 'MOS-1',
      });
      // shop-b may not use locker 2's large cell (shop-a's segment).
      expect((await list('', KEYS.shopB)).find((p) => p.id === 2).cellSizes).toEqual([{ id: 1, width: 400, height: 200 }]);
    });

    it('returns the schedule only when asked', async () => {
      const [one] = await list('?schedule=true');
      expect(one.workTimeProfile).toMatchObject({ id: 10, active: true, saturday: { start: '10:00', end: '18:00' } });
      expect(one.workTimeProfile).not.toHaveProperty('sunday');
      expect(one.specialDays).toEqual({ holidays: [{ day: '2030-03-08', type: 1 }], days: [], daysOfExclusion: [] });
      const [plain] = await list('?schedule=false');
      expect(plain).not.toHaveProperty('workTimeProfile');
      expect(plain).not.toHaveProperty('specialDays');
    });

    it('marks broken lockers and the days a locker is expected full, over DAY_OFFS_DAYS days from today', async () => {
      const broken = (await list()).find((p) => p.id === 3);
      expect(broken.dayOffs).toEqual(['2030-03-04', '2030-03-05', '2030-03-06', '2030-03-07', '2030-03-08'].map((day) => ({ day, reason: 'broken' })));
      await reserve('F-1', SMALL);
      await reserve('F-2', SMALL);
      await reserve('F-3', SMALL);
      await reserve('F-4', LARGE);
      await loadIntoLocker(tc, 'shop-a', 'F-4'); // the large cell frees after Thursday 2030-03-07
      const one = (await list()).find((p) => p.id === 1);
      expect(one.dayOffs).toEqual(['2030-03-04', '2030-03-05', '2030-03-06', '2030-03-07'].map((day) => ({ day, reason: 'full' })));
      // shop-b still has its own cell 6.
      expect((await list('', KEYS.shopB)).find((p) => p.id === 1).dayOffs).toEqual([]);
    });

    it('leaves out lockers where the marketplace may use no cell', async () => {
      const fleet = testFleet();
      for (const cell of fleet.lockers[1]!.cells) cell.segment = ['shop-a'];
      tc.writeFleet(fleet);
      await tc.cloud.reloadFleet();
      expect((await list('', KEYS.shopB)).map((p) => p.id)).toEqual([1, 3]);
    });
  });

  describe('get-by-id', () => {
    const byId = async (query: string, key: string = KEYS.shopA) => tc.call('GET', `${BY_ID}?${query}`, { key });

    it('answers the locker at the top level with the cells the marketplace may use', async () => {
      const res = await byId('postamatId=1');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: 1,
        name: 'Locker One',
        workTime: 'Mon-Sat 08-22',
        workSchedule: {
          workTimeProfile: expect.objectContaining({ id: 10, monday: { start: '08:00', end: '22:00' } }),
          specialDays: { holidays: [{ day: '2030-03-08', type: 1 }], days: [], daysOfExclusion: [] },
        },
        find: 'By the lifts',
        photos: [],
        location: expect.objectContaining({ id: 1 }),
        cellSizes: expect.any(Array),
        machineEquipment: { barcodeScannerEquip: false, heatedCells: false, cooledCells: false },
        mos_regestry_id: 'MOS-1',
        active: true,
        depth: 500,
        cells: [
          { cellId: 1, size: { width: 400, height: 100 }, free: true },
          { cellId: 2, size: { width: 400, height: 100 }, free: true },
          { cellId: 3, size: { width: 400, height: 200 }, free: true },
          { cellId: 4, size: { width: 400, height: 400 }, free: true },
          { cellId: 5, size: { width: 400, height: 100 }, free: false },
        ],
      });
    });

    it('cellsType=1 lists only cells free for loading now', async () => {
      await reserve('G-1', SMALL);
      const res = await byId('postamatId=1&cellsType=1');
      expect(res.body.cells.map((c: { cellId: number }) => c.cellId)).toEqual([2, 3, 4]);
    });

    it('adds availableCells when the locker has a segment for the marketplace', async () => {
      expect((await byId('postamatId=1')).body).not.toHaveProperty('availableCells');
      expect((await byId('postamatId=2')).body.availableCells.map((c: { cellId: number }) => c.cellId)).toEqual([1, 2, 3, 4]);
      expect((await byId('postamatId=1', KEYS.shopB)).body.availableCells).toEqual([
        { cellId: 1, size: { width: 400, height: 100 } },
        { cellId: 2, size: { width: 400, height: 100 } },
        { cellId: 3, size: { width: 400, height: 200 } },
        { cellId: 4, size: { width: 400, height: 400 } },
        { cellId: 6, size: { width: 400, height: 100 } },
      ]);
    });

    it('shows an inactive locker as inactive', async () => {
      expect((await byId('postamatId=4')).body).toMatchObject({ id: 4, active: false });
    });
  });
});
