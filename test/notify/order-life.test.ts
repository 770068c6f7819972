/**
 * Every notification of whole order lives, with exact bodies, through a real HTTPS receiver that
 * trusts nothing but its own CA and checks Basic auth. Orders are created, cancelled and extended
 * over the HTTP API; the locker's facts are applied as the locker link applies them.
 */
import { describe, expect, it } from 'vitest';
import { codeHash } from '../../shared/src/codes.js';
import { testEngines } from '../helpers/cloud-db.js';
import { KEYS, orderBody, SHOP_B_SECRET, useNotifyCloud } from './helpers/notify-cloud.js';
import { lastIntent, lockerAppliedAll, orderRow, parcelStates } from './helpers/outbox-reads.js';
import { verifySignature } from '../../cloud/src/notify/signature.js';

const V4 = '/api/v4/auth/delivery';
const MINUTE = 60_000;

function twoParcelOrder(externalId: string): Record<string, unknown> {
  return orderBody(externalId, {
    parcels: [
      { barcode: `${externalId}-P1`, dimension: { length: 300, width: 200, height: 80 } },
      { barcode: `${externalId}-P2`, dimension: { length: 300, width: 350, height: 150 } },
    ],
  });
}

describe.each(testEngines())('order lives and their notifications (%s)', (engine) => {
  const h = useNotifyCloud(engine, { now: '2030-03-05T09:00:00Z' });

  /** Waits until the receiver has `n` requests and the dispatcher is idle. */
  async function delivered(n: number) {
    await h.receiver.waitForCalls(n);
    await h.nc.dispatcher.idle();
    expect(h.receiver.calls).toHaveLength(n);
    return h.receiver.delivered.map((c) => ({ path: c.path, body: c.body }));
  }

  async function create(body: Record<string, unknown>, key: string = KEYS.shopA) {
    const res = await h.nc.call('PUT', `${V4}/smartorder/create`, { key, body });
    expect(res.status).toBe(200);
    const cells = new Map<string, number>();
    for (const r of res.body.reserved as { cellId: number; barcodes: string[] }[]) for (const b of r.barcodes) cells.set(b, r.cellId);
    return cells;
  }

  it('load (status 3 per parcel), pick-up code, deadline, then pickup (status 2 per parcel)', async () => {
    const cells = await create(twoParcelOrder('L1'));
    const id = await h.nc.orderId('L1');
    const grantId = 'grant-1';

    await h.nc.fact(1, { type: 'parcel.loaded', orderId: id, barcode: 'L1-P1', cellId: cells.get('L1-P1')!, grantId });
    expect(await delivered(1)).toStrictEqual([
      {
        path: '/order-status',
        body: { postamat_id: '1', cell_id: cells.get('L1-P1'), id: 'L1', barcode: 'L1-P1', event_id: '3', status: 'Courier loaded', dt: '2030-03-05T12:00:00+03:00' },
      },
    ]);
    expect((await orderRow(h.nc.db, id)).state).toBe(0);

    h.nc.clock.advance(MINUTE);
    await h.nc.fact(1, { type: 'parcel.loaded', orderId: id, barcode: 'L1-P2', cellId: cells.get('L1-P2')!, grantId });
    const afterLoad = await delivered(4);
    const code = (afterLoad[2]!.body as { access_code: string }).access_code;
    expect(code).toMatch(/^\d{6}$/);
    expect(afterLoad.slice(1)).toStrictEqual([
      {
        path: '/order-status',
        body: { postamat_id: '1', cell_id: cells.get('L1-P2'), id: 'L1', barcode: 'L1-P2', event_id: '3', status: 'Courier loaded', dt: '2030-03-05T12:01:00+03:00' },
      },
      { path: '/user-access-code', body: { id: 'L1', postamat_id: '1', access_code: code } },
      // 72 hours end on Friday 2030-03-08, a holiday of locker 1: storage runs to Saturday.
      { path: '/expiration-date-changes', body: { id: 'L1', event_dt: '2030-03-05T12:01:00+03:00', expire_dt: '2030-03-09T12:01:00+03:00' } },
    ]);
    for (const c of h.receiver.calls) {
      expect(c.headers['content-type']).toBe('application/json');
      expect(c.headers['x-notification-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(new Set(h.receiver.calls.map((c) => c.headers['x-notification-id'])).size).toBe(4);

    const order = await orderRow(h.nc.db, id);
    expect(order.state).toBe(3);
    const intent = await lastIntent(h.nc.db, 1, id);
    expect(intent.order).toMatchObject({ state: 3, pickupCodeHash: codeHash('customer', '1', code), holdUntil: Date.parse('2030-03-09T09:01:00Z') });

    h.nc.clock.set('2030-03-06T10:00:00Z');
    await h.nc.fact(1, { type: 'parcel.received', orderId: id, barcode: 'L1-P1', cellId: cells.get('L1-P1')! });
    await h.nc.fact(1, { type: 'parcel.received', orderId: id, barcode: 'L1-P2', cellId: cells.get('L1-P2')! });
    expect((await delivered(6)).slice(4)).toStrictEqual([
      { path: '/order-status', body: { id: 'L1', barcode: 'L1-P1', event_id: '2', status: 'Client received', dt: '2030-03-06T13:00:00+03:00' } },
      { path: '/order-status', body: { id: 'L1', barcode: 'L1-P2', event_id: '2', status: 'Client received', dt: '2030-03-06T13:00:00+03:00' } },
    ]);
    expect((await orderRow(h.nc.db, id)).state).toBe(2);
    expect(await lastIntent(h.nc.db, 1, id)).toMatchObject({ order: { state: 2, pickupCodeHash: null } });
  });

  it('load, storage expiry (6 at once, 7 when the locker confirms, status 7), courier return (status 4); arrays signed for shop-b', async () => {
    const cells = await create(orderBody('E1'), KEYS.shopB);
    const id = await h.nc.orderId('E1', 'shop-b');
    const cell = cells.get('E1-P1')!;
    await h.nc.fact(1, { type: 'parcel.loaded', orderId: id, barcode: 'E1-P1', cellId: cell, grantId: 'g' });
    await delivered(3);
    const holdUntil = (await orderRow(h.nc.db, id)).hold_until!;
    expect(holdUntil).toBe(Date.parse('2030-03-07T09:00:00Z')); // 48 hours, Thursday works

    h.nc.clock.set(holdUntil - 1);
    expect(await h.nc.storageClock.tick()).toEqual({ expired: 0, awaitingReturn: 0 });
    h.nc.clock.set(holdUntil);
    expect(await h.nc.storageClock.tick()).toEqual({ expired: 1, awaitingReturn: 0 });
    const revoking = await lastIntent(h.nc.db, 1, id);
    expect(revoking.order).toMatchObject({ state: 6, pickupCodeHash: null, parcels: [{ barcode: 'E1-P1', state: 'awaiting_return', cellId: cell }] });
    expect(await h.nc.storageClock.tick()).toEqual({ expired: 0, awaitingReturn: 0 });
    await h.nc.dispatcher.idle();
    expect(h.receiver.calls).toHaveLength(3); // nothing is sent on entering 6

    h.nc.clock.advance(2 * MINUTE);
    expect(await lockerAppliedAll(h.nc.db, 1)).toBeGreaterThanOrEqual(revoking.cseq);
    expect(await h.nc.storageClock.confirmRevocations(1)).toBe(1);
    h.nc.cloud.deps.signals.notificationsRecorded();
    expect((await delivered(4))[3]).toStrictEqual({
      path: '/order-status',
      body: [{ id: 'E1', barcode: 'E1-P1', event_id: '7', status: 'Awaiting return', dt: '2030-03-07T12:02:00+03:00' }],
    });
    expect((await orderRow(h.nc.db, id)).state).toBe(7);

    h.nc.clock.advance(60 * MINUTE);
    await h.nc.fact(1, { type: 'parcel.returned', orderId: id, barcode: 'E1-P1', cellId: cell, grantId: 'g2' });
    expect((await delivered(5))[4]).toStrictEqual({
      path: '/order-status',
      body: [{ id: 'E1', barcode: 'E1-P1', event_id: '4', status: 'Courier picked up', dt: '2030-03-07T13:02:00+03:00' }],
    });
    expect((await orderRow(h.nc.db, id)).state).toBe(4);
    expect(await parcelStates(h.nc.db, id)).toEqual({ 'E1-P1': 'returned' });
    // Signed at each attempt's own (manual) time, days apart here: a week's tolerance covers them.
    const week = 7 * 24 * 3600;
    for (const c of h.receiver.calls) {
      expect(verifySignature(SHOP_B_SECRET, c.headers['x-signature'] as string, c.raw, Math.floor(h.nc.clock.now() / 1000), week)).toBe(true);
      expect(verifySignature(SHOP_B_SECRET, c.headers['x-signature'] as string, c.raw.replace('E1', 'E2'), Math.floor(h.nc.clock.now() / 1000), week)).toBe(false);
    }
  });

  it('without the locker confirming, 6 becomes 7 fifteen minutes after expiry', async () => {
    const cells = await create(orderBody('T1'));
    const id = await h.nc.orderId('T1');
    await h.nc.fact(1, { type: 'parcel.loaded', orderId: id, barcode: 'T1-P1', cellId: cells.get('T1-P1')!, grantId: 'g' });
    await delivered(3);
    const holdUntil = (await orderRow(h.nc.db, id)).hold_until!;
    h.nc.clock.set(holdUntil + 5_000);
    expect(await h.nc.storageClock.tick()).toEqual({ expired: 1, awaitingReturn: 0 });
    h.nc.clock.set(holdUntil + 5_000 + 15 * MINUTE - 1);
    expect(await h.nc.storageClock.tick()).toEqual({ expired: 0, awaitingReturn: 0 });
    h.nc.clock.advance(1);
    expect(await h.nc.storageClock.tick()).toEqual({ expired: 0, awaitingReturn: 1 });
    h.nc.cloud.deps.signals.notificationsRecorded();
    expect((await delivered(4))[3]!.body).toMatchObject({ id: 'T1', barcode: 'T1-P1', event_id: '7' });
    expect(await h.nc.storageClock.tick()).toEqual({ expired: 0, awaitingReturn: 0 });
  });

  it('cancelling every position of a loaded order: 6, then 7 with status 7 per parcel, then returns (status 4)', async () => {
    const cells = await create(twoParcelOrder('C1'));
    const id = await h.nc.orderId('C1');
    for (const b of ['C1-P1', 'C1-P2']) await h.nc.fact(1, { type: 'parcel.loaded', orderId: id, barcode: b, cellId: cells.get(b)!, grantId: 'g' });
    await delivered(4);
    h.nc.clock.advance(10 * MINUTE);
    for (const barcode of ['C1-P1', 'C1-P2']) {
      expect((await h.nc.call('PUT', `${V4}/order/place/cancel`, { key: KEYS.shopA, body: { extId: 'C1', barcode } })).status).toBe(200);
    }
    expect((await orderRow(h.nc.db, id)).state).toBe(6);
    expect(await h.nc.storageClock.tick()).toEqual({ expired: 0, awaitingReturn: 0 });
    await lockerAppliedAll(h.nc.db, 1);
    expect(await h.nc.storageClock.confirmRevocations(1)).toBe(1);
    h.nc.cloud.deps.signals.notificationsRecorded();
    expect((await delivered(6)).slice(4).map((d) => d.body)).toStrictEqual([
      { id: 'C1', barcode: 'C1-P1', event_id: '7', status: 'Awaiting return', dt: '2030-03-05T12:10:00+03:00' },
      { id: 'C1', barcode: 'C1-P2', event_id: '7', status: 'Awaiting return', dt: '2030-03-05T12:10:00+03:00' },
    ]);
    h.nc.clock.advance(MINUTE);
    for (const b of ['C1-P1', 'C1-P2']) await h.nc.fact(1, { type: 'parcel.returned', orderId: id, barcode: b, cellId: cells.get(b)!, grantId: 'g2' });
    expect((await delivered(8)).slice(6).map((d) => d.body)).toStrictEqual([
      { id: 'C1', barcode: 'C1-P1', event_id: '4', status: 'Courier picked up', dt: '2030-03-05T12:11:00+03:00' },
      { id: 'C1', barcode: 'C1-P2', event_id: '4', status: 'Courier picked up', dt: '2030-03-05T12:11:00+03:00' },
    ]);
    expect((await orderRow(h.nc.db, id)).state).toBe(4);
  });
});
