/**
 * GET /operator/orders/storage-ending-today through real HTTP on the cloud's manual clock: a
 * loaded parcel is listed on the day its storage ends (the locker's local day, from its first to
 * its last millisecond) and not the day before; orders not waiting for pick-up never are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endOfLocalDay, localDate, startOfLocalDay } from '../../cloud/src/lockers/locker-time.js';
import { loadIntoLocker } from '../cloud/helpers/locker-facts.js';
import { testEngines } from '../helpers/cloud-db.js';
import { type FactsCloud, KEYS, orderBody, startFactsCloud } from '../locker-events/facts-cloud.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';
const PATH = '/operator/orders/storage-ending-today';

describe.each(testEngines())('parcels whose storage ends today (%s)', (engine) => {
  let fc: FactsCloud;
  beforeAll(async () => {
    fc = await startFactsCloud(engine);
  });
  afterAll(async () => fc.stop());

  const op = { operatorKey: KEYS.operator };

  it('lists a loaded parcel on its last day of storage in its locker time zone, with the locker, and not the day before', async () => {
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('END-1') })).status).toBe(200);
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('END-2') })).status).toBe(200);
    await loadIntoLocker(fc, 'shop-a', 'END-1');
    const orderId = await fc.orderId('END-1');
    const summary = await fc.call('GET', `/operator/orders/${orderId}`, op);
    const holdUntil = Date.parse(summary.body.holdUntil as string);
    const zone = summary.body.timezone as string;
    const lastDay = localDate(holdUntil, zone);
    const start = fc.clock.now();

    fc.clock.set(startOfLocalDay(lastDay, zone) - 1);
    expect((await fc.call('GET', PATH, op)).body).toMatchObject({ items: [], total: 0 });

    for (const at of [startOfLocalDay(lastDay, zone), Math.min(holdUntil, endOfLocalDay(lastDay, zone))]) {
      fc.clock.set(at);
      const listed = await fc.call('GET', PATH, op);
      expect(listed.status).toBe(200);
      expect(listed.body).toMatchObject({ total: 1, page: 1, items: [{ orderId, externalId: 'END-1', lockerId: 1, lockerName: 'Locker One', state: 3 }] });
      expect(listed.body.items[0].holdUntil).toBe(new Date(holdUntil).toISOString());
    }
    expect((await fc.call('GET', `${PATH}?pageSize=500`, op)).status).toBe(400);
    expect((await fc.call('GET', PATH)).status).toBe(401);
    fc.clock.set(start);
  });
});
