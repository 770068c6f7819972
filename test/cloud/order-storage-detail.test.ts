import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KEYS, orderBody, routeBody } from './helpers/fleet-fixtures.js';
import { commandsFor, lastCseq, notificationsOf, orderRow } from './helpers/db-queries.js';
import { loadIntoLocker } from './helpers/locker-facts.js';
import { type TestCloud, startTestCloud } from './helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';
const EXTEND = '/api/v4/auth/delivery/order/extension';
const DETAIL = '/api/v4/auth/delivery/order/detail';
const ROUTE = '/api/v1/auth/couriers/courier-with-route';

describe.each(testEngines())('storage extension and order detail on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine);
  });
  afterAll(async () => tc.stop());
  beforeEach(async () => tc.reset());

  const as = { key: KEYS.shopA };

  describe('extension', () => {
    it('answers 250 for an unknown order and 252 outside Courier loaded', async () => {
      expect(await tc.call('POST', EXTEND, { ...as, body: { extId: 'nope' } })).toEqual({ status: 400, body: { message: 'Operation not found', resultCode: 250 } });
      await tc.call('PUT', SMART, { ...as, body: orderBody('E-0') });
      expect(await tc.call('POST', EXTEND, { ...as, body: { extId: 'E-0' } })).toEqual({ status: 400, body: { message: 'Operation have bad state', resultCode: 252 } });
    });

    it('adds 72 hours and moves a deadline off non-working days; tells the locker and the marketplace', async () => {
      // Loaded Tuesday 12:00 Moscow: +72 h is Friday 2030-03-08, a holiday -> Saturday (a working day).
      tc.clock.set('2030-03-05T09:00:00Z');
      await tc.call('PUT', SMART, { ...as, body: orderBody('E-1') });
      await loadIntoLocker(tc, 'shop-a', 'E-1');
      const order = await orderRow(tc, 'shop-a', 'E-1');
      expect(order.hold_until).toBe(Date.parse('2030-03-09T12:00:00+03:00'));

      tc.clock.set('2030-03-06T07:30:00Z');
      const cseq = await lastCseq(tc, 1);
      // Saturday 12:00 + 72 h = Tuesday 2030-03-12: a working day.
      const first = await tc.call('POST', EXTEND, { ...as, body: { extId: 'E-1' } });
      expect(first).toEqual({ status: 200, body: { externalID: 'E-1', date_storage: '2030-03-12T12:00:00+03:00' } });
      // Each extension starts from the current deadline: Friday 2030-03-15, then Monday 2030-03-18.
      const second = await tc.call('POST', EXTEND, { ...as, body: { extId: 'E-1' } });
      expect(second.body.date_storage).toBe('2030-03-15T12:00:00+03:00');
      const third = await tc.call('POST', EXTEND, { ...as, body: { extId: 'E-1' } });
      expect(third.body.date_storage).toBe('2030-03-18T12:00:00+03:00');

      const commands = await commandsFor(tc, 1, cseq);
      expect(commands.map((c) => c.type === 'order.upsert' && c.order.holdUntil)).toEqual([
        Date.parse('2030-03-12T12:00:00+03:00'),
        Date.parse('2030-03-15T12:00:00+03:00'),
        Date.parse('2030-03-18T12:00:00+03:00'),
      ]);
      const notes = (await notificationsOf(tc, order.id)).filter((n) => n.kind === 'expiration-date-changes');
      expect(notes.slice(1).map((n) => n.body)).toEqual([
        { id: 'E-1', event_dt: '2030-03-06T10:30:00+03:00', expire_dt: '2030-03-12T12:00:00+03:00' },
        { id: 'E-1', event_dt: '2030-03-06T10:30:00+03:00', expire_dt: '2030-03-15T12:00:00+03:00' },
        { id: 'E-1', event_dt: '2030-03-06T10:30:00+03:00', expire_dt: '2030-03-18T12:00:00+03:00' },
      ]);
      expect(notes.every((n) => n.marketplaceId === 'shop-a')).toBe(true);
    });

    it('skips a Sunday the locker is closed', async () => {
      // Loaded Thursday 2030-03-07 12:00: +72 h is Sunday 2030-03-10, closed -> Monday.
      tc.clock.set('2030-03-07T09:00:00Z');
      await tc.call('PUT', SMART, { ...as, body: orderBody('E-2', { dateDelivery: '2030-03-07' }) });
      await loadIntoLocker(tc, 'shop-a', 'E-2');
      expect((await orderRow(tc, 'shop-a', 'E-2')).hold_until).toBe(Date.parse('2030-03-11T12:00:00+03:00'));
    });
  });

  describe('detail', () => {
    let code: string;
    beforeEach(async () => {
      await tc.call('PUT', SMART, { ...as, body: orderBody('D-1', { parcels: [{ barcode: 'D-1-A' }, { barcode: 'D-1-B', dimension: { length: 450, width: 390, height: 390 } }] }) });
      code = (await tc.call('PUT', ROUTE, { partnerKey: KEYS.partner, body: routeBody({}, { postamatIds: [1] }) })).body.postamatAccessCode;
    });

    const detail = (body: unknown, key: string = KEYS.shopA) => tc.call('POST', DETAIL, { key, body });

    it('shows where the order is, by courier or by access code, without holdUntil before loading', async () => {
      const expected = {
        idPoint: 1,
        orderNumber: 'D-1',
        workTimeProfile: expect.objectContaining({ id: 10, name: 'Closed on Sundays', lastUpdate: '2030-01-01T00:00:00+03:00', monday: { start: '08:00', end: '22:00' } }),
        location: expect.objectContaining({ id: 1, city: 'Moscow', fullAddress: 'Moscow, Test street, 1' }),
        pointAccess: { privateAccess: true, accessGuide: 'Ask the reception', accessCode: '12#34' },
        holdedCells: [
          { cellId: 1, barcodes: ['D-1-A'] },
          { cellId: 4, barcodes: ['D-1-B'] },
        ],
        state: 0,
      };
      for (const body of [
        { barcode: 'D-1-A', courierExternalId: 'courier-1' },
        { barcode: 'D-1-B', postamatAccessCode: code },
        { barcode: 'D-1-A', courierExternalId: 'courier-1', postamatAccessCode: code },
      ]) {
        const res = await detail(body);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(expected);
        expect(res.body).not.toHaveProperty('holdUntil');
      }
    });

    it('gives holdUntil with the locker offset once the order is Courier loaded', async () => {
      await loadIntoLocker(tc, 'shop-a', 'D-1');
      const res = await detail({ barcode: 'D-1-A', postamatAccessCode: code });
      expect(res.body).toMatchObject({ state: 3, holdUntil: '2030-03-07T12:00:00+03:00' });
    });

    it('answers 200 for an unknown barcode, 203 for an unknown courier, 210 without a fitting route', async () => {
      expect(await detail({ barcode: 'nope', courierExternalId: 'courier-1' })).toEqual({ status: 400, body: { message: 'Order not found', resultCode: 200 } });
      expect(await detail({ barcode: 'D-1-A', courierExternalId: 'stranger' })).toEqual({ status: 400, body: { message: 'Logist not found', resultCode: 203 } });
      const noRoute = { status: 400, body: { message: 'Courier route not found', resultCode: 210 } };
      expect(await detail({ barcode: 'D-1-A', postamatAccessCode: '00000000' })).toEqual(noRoute);
      // A route to another locker only.
      await tc.call('PUT', ROUTE, { partnerKey: KEYS.partner, body: routeBody({ externalId: 'courier-2', email: 'c2@example.ru', phone: '+79990000002' }, { postamatIds: [2] }) });
      expect(await detail({ barcode: 'D-1-A', courierExternalId: 'courier-2' })).toEqual(noRoute);
      // The right code of another courier does not match this courier.
      expect(await detail({ barcode: 'D-1-A', courierExternalId: 'courier-2', postamatAccessCode: code })).toEqual(noRoute);
      // After the route date has ended in the locker's time zone the route no longer counts.
      tc.clock.set('2030-03-04T21:00:00Z');
      expect(await detail({ barcode: 'D-1-A', courierExternalId: 'courier-1' })).toEqual(noRoute);
    });
  });
});
