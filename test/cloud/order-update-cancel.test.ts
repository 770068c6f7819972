import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KEYS, orderBody } from './helpers/fleet-fixtures.js';
import { commandsFor, lastCseq, notificationsOf, orderRow, parcelsOf } from './helpers/db-queries.js';
import { loadIntoLocker, receiveByCustomer } from './helpers/locker-facts.js';
import { type TestCloud, startTestCloud } from './helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';
const PLAIN = '/api/v4/auth/delivery/order/create';
const UPDATE = '/api/v4/auth/delivery/order/update';
const CANCEL = '/api/v4/auth/delivery/order/place/cancel';
const SMALL = { length: 300, width: 200, height: 80 };
const MEDIUM = { length: 300, width: 300, height: 150 };
const LARGE = { length: 450, width: 390, height: 390 }; // only the large cell, and shares it with nothing

describe.each(testEngines())('order update and position cancel on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine);
  });
  afterAll(async () => tc.stop());
  beforeEach(async () => tc.reset());

  const as = { key: KEYS.shopA };
  const twoParcels = (id: string) =>
    orderBody(id, {
      parcels: [
        { barcode: `${id}-A`, dimension: SMALL },
        { barcode: `${id}-B`, dimension: SMALL },
      ],
    });

  describe('update', () => {
    it('answers 205 for an unknown order and 206 outside state New', async () => {
      expect(await tc.call('PUT', UPDATE, { ...as, body: { externalId: 'nope', parcels: [{ barcode: 'x' }] } })).toEqual({
        status: 400,
        body: { message: 'Post operation not found', resultCode: 205 },
      });
      await tc.call('PUT', SMART, { ...as, body: orderBody('U-0') });
      await loadIntoLocker(tc, 'shop-a', 'U-0');
      expect(await tc.call('PUT', UPDATE, { ...as, body: { externalId: 'U-0', parcels: [{ barcode: 'U-0-P1' }] } })).toEqual({
        status: 400,
        body: { message: 'Post operation wrong state', resultCode: 206 },
      });
    });

    it('replaces a parcel found by barcode, adds a new one, keeps the rest, and reserves again', async () => {
      await tc.call('PUT', SMART, { ...as, body: twoParcels('U-1') });
      const before = await orderRow(tc, 'shop-a', 'U-1');
      expect(await parcelsOf(tc, before.id)).toEqual([
        { barcode: 'U-1-A', state: 'pending', cell_id: 1 },
        { barcode: 'U-1-B', state: 'pending', cell_id: 1 },
      ]);
      const cseq = await lastCseq(tc, 1);
      const res = await tc.call('PUT', UPDATE, {
        ...as,
        body: {
          externalId: 'U-1',
          number: 'N-2',
          dateDelivery: '2030-03-06',
          parcels: [
            { barcode: 'U-1-B', additionalBarcodes: ['ALT-B'], dimension: LARGE },
            { barcode: 'U-1-C', dimension: MEDIUM },
          ],
        },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        externalId: 'U-1',
        state: 0,
        // A (300x200x80) and C (300x300x150) stack in the medium cell: less volume than S + M.
        reserved: [
          { cellId: 3, externalId: 'U-1', barcodes: ['U-1-A', 'U-1-C'] },
          { cellId: 4, externalId: 'U-1', barcodes: ['U-1-B'] },
        ],
        temporarilyRejectedItems: [],
        permanentlyRejectedItems: [],
        toReturn: [],
      });
      const after = await orderRow(tc, 'shop-a', 'U-1');
      expect(after).toMatchObject({ number: 'N-2', date_delivery: '2030-03-06', client_invoice: before.client_invoice });
      const [cmd] = await commandsFor(tc, 1, cseq);
      expect(cmd?.type === 'order.upsert' && cmd.order.parcels).toEqual([
        { barcode: 'U-1-A', additionalBarcodes: [], dimension: SMALL, state: 'pending', cellId: 3 },
        { barcode: 'U-1-B', additionalBarcodes: ['ALT-B'], dimension: LARGE, state: 'pending', cellId: 4 },
        { barcode: 'U-1-C', additionalBarcodes: [], dimension: MEDIUM, state: 'pending', cellId: 3 },
      ]);
    });

    it('requires prePaymentSum to equal the sum of totalSum (code 3, nothing changed)', async () => {
      await tc.call('PUT', PLAIN, { ...as, body: orderBody('U-2') });
      const item = { count: 2, name: 'Cup', subjectType: 1, price: 500, totalSum: 1000, taxId: 1, taxSystemId: 1 };
      const bad = await tc.call('PUT', UPDATE, {
        ...as,
        body: { externalId: 'U-2', number: 'changed', parcels: [{ barcode: 'U-2-P1' }], clientInvoice: { cart: { items: [item, item], prePaymentSum: 1500 } } },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.resultCode).toBe(3);
      expect(bad.body.message).toContain('prePaymentSum');
      expect((await orderRow(tc, 'shop-a', 'U-2')).number).toBe('N-U-2');
      const good = await tc.call('PUT', UPDATE, {
        ...as,
        body: { externalId: 'U-2', parcels: [{ barcode: 'U-2-P1' }], clientInvoice: { cart: { items: [item, item], prePaymentSum: 2000 } } },
      });
      expect(good).toEqual({ status: 200, body: { externalId: 'U-2', state: 0 } });
      expect(JSON.parse((await orderRow(tc, 'shop-a', 'U-2')).client_invoice).cart.prePaymentSum).toBe(2000);
    });

    it('checks an order without reservation for fitting cells again when its parcels change (32)', async () => {
      await tc.call('PUT', SMART, { ...as, body: orderBody('U-L', { parcels: [{ barcode: 'U-L-P1', dimension: LARGE }] }) });
      await tc.call('PUT', PLAIN, { ...as, body: orderBody('U-3') });
      const res = await tc.call('PUT', UPDATE, { ...as, body: { externalId: 'U-3', parcels: [{ barcode: 'U-3-P1', dimension: LARGE }] } });
      expect(res).toEqual({ status: 400, body: expect.objectContaining({ message: 'Not cells for all parcels', resultCode: 32 }) });
      const order = await orderRow(tc, 'shop-a', 'U-3');
      expect(await parcelsOf(tc, order.id)).toEqual([{ barcode: 'U-3-P1', state: 'pending', cell_id: null }]);
    });

    it('moves the order to another locker: order.remove for the old one, the order and a reservation in the new one', async () => {
      await tc.call('PUT', SMART, { ...as, body: orderBody('U-4') });
      const order = await orderRow(tc, 'shop-a', 'U-4');
      const [c1, c2] = [await lastCseq(tc, 1), await lastCseq(tc, 2)];
      const res = await tc.call('PUT', UPDATE, { ...as, body: { externalId: 'U-4', postamatId: 2, parcels: [] } });
      expect(res.status).toBe(400); // parcels is required and must not be empty
      const moved = await tc.call('PUT', UPDATE, { ...as, body: { externalId: 'U-4', postamatId: 2, parcels: [{ barcode: 'U-4-P1', dimension: SMALL }] } });
      expect(moved.body.reserved).toEqual([{ cellId: 1, externalId: 'U-4', barcodes: ['U-4-P1'] }]);
      expect(await commandsFor(tc, 1, c1)).toEqual([{ cseq: c1 + 1, type: 'order.remove', orderId: order.id }]);
      const [up] = await commandsFor(tc, 2, c2);
      expect(up?.type === 'order.upsert' && up.order.parcels[0]?.cellId).toBe(1);
      expect((await orderRow(tc, 'shop-a', 'U-4')).locker_id).toBe(2);
      // Cell 1 of locker 1 is free again.
      const other = await tc.call('PUT', SMART, { ...as, body: orderBody('U-5') });
      expect(other.body.reserved[0].cellId).toBe(1);
    });
  });

  describe('place/cancel', () => {
    it('answers 205, 207 for unknown order or parcel', async () => {
      expect((await tc.call('PUT', CANCEL, { ...as, body: { extId: 'nope', barcode: 'x' } })).body).toEqual({ message: 'Post operation not found', resultCode: 205 });
      await tc.call('PUT', SMART, { ...as, body: orderBody('C-0') });
      expect((await tc.call('PUT', CANCEL, { ...as, body: { extId: 'C-0', barcode: 'x' } })).body).toEqual({ message: 'Packaging not found', resultCode: 207 });
    });

    it('in state New: releases the position, 208 when repeated, order Cancelled (5) when none is left', async () => {
      await tc.call('PUT', SMART, { ...as, body: orderBody('C-1', { parcels: [{ barcode: 'C-1-A', dimension: LARGE }, { barcode: 'C-1-B', dimension: SMALL }] }) });
      const order = await orderRow(tc, 'shop-a', 'C-1');
      expect(await tc.call('PUT', CANCEL, { ...as, body: { extId: 'C-1', barcode: 'C-1-A' } })).toEqual({ status: 200, body: { externalId: 'C-1', state: 0 } });
      expect(await parcelsOf(tc, order.id)).toEqual([
        { barcode: 'C-1-A', state: 'cancelled', cell_id: null },
        { barcode: 'C-1-B', state: 'pending', cell_id: 1 },
      ]);
      // The large cell is free again for another order.
      expect((await tc.call('PUT', SMART, { ...as, body: orderBody('C-X', { parcels: [{ barcode: 'C-X-1', dimension: LARGE }] }) })).body.reserved[0].cellId).toBe(4);
      expect(await tc.call('PUT', CANCEL, { ...as, body: { extId: 'C-1', barcode: 'C-1-A' } })).toEqual({
        status: 400,
        body: { message: 'Packaging canceled', resultCode: 208 },
      });
      expect((await tc.call('PUT', CANCEL, { ...as, body: { extId: 'C-1', barcode: 'C-1-B' } })).body).toEqual({ externalId: 'C-1', state: 5 });
      const [last] = (await commandsFor(tc, 1)).filter((c) => c.type === 'order.upsert' && c.order.externalId === 'C-1').slice(-1);
      expect(last?.type === 'order.upsert' && last.order.state).toBe(5);
    });

    it('in Courier loaded: the parcel awaits return; all positions cancelled -> 6 at once, pick-up code revoked', async () => {
      await tc.call('PUT', SMART, { ...as, body: orderBody('C-2', { parcels: [{ barcode: 'C-2-A', dimension: LARGE }, { barcode: 'C-2-B', dimension: SMALL }] }) });
      await loadIntoLocker(tc, 'shop-a', 'C-2');
      const loaded = await orderRow(tc, 'shop-a', 'C-2');
      expect(loaded.state).toBe(3);
      expect(loaded.pickup_code_hash).toMatch(/^[0-9a-f]{64}$/);
      expect((await tc.call('PUT', CANCEL, { ...as, body: { extId: 'C-2', barcode: 'C-2-A' } })).body).toEqual({ externalId: 'C-2', state: 3 });
      expect((await tc.call('PUT', CANCEL, { ...as, body: { extId: 'C-2', barcode: 'C-2-A' } })).body.resultCode).toBe(208);
      const cseq = await lastCseq(tc, 1);
      expect((await tc.call('PUT', CANCEL, { ...as, body: { extId: 'C-2', barcode: 'C-2-B' } })).body).toEqual({ externalId: 'C-2', state: 6 });
      const order = await orderRow(tc, 'shop-a', 'C-2');
      expect(order).toMatchObject({ state: 6, pickup_code_hash: null, state_changed_at: tc.clock.now() });
      expect(await parcelsOf(tc, order.id)).toEqual([
        { barcode: 'C-2-A', state: 'awaiting_return', cell_id: 4 },
        { barcode: 'C-2-B', state: 'awaiting_return', cell_id: 1 },
      ]);
      const [cmd] = await commandsFor(tc, 1, cseq);
      expect(cmd?.type === 'order.upsert' && { state: cmd.order.state, code: cmd.order.pickupCodeHash }).toEqual({ state: 6, code: null });
      // Return-initiated parcels still hold their cells.
      expect((await tc.call('PUT', SMART, { ...as, body: orderBody('C-Y', { parcels: [{ barcode: 'C-Y-1', dimension: LARGE }] }) })).body.temporarilyRejectedItems).toEqual(['C-Y-1']);
    });

    it('answers 211 for a parcel the customer already took', async () => {
      await tc.call('PUT', SMART, { ...as, body: orderBody('C-3') });
      await loadIntoLocker(tc, 'shop-a', 'C-3');
      await receiveByCustomer(tc, 'shop-a', 'C-3');
      expect(await tc.call('PUT', CANCEL, { ...as, body: { extId: 'C-3', barcode: 'C-3-P1' } })).toEqual({
        status: 400,
        body: { message: 'Packaging loaded or issued', resultCode: 211 },
      });
    });

    it('cancelling the last unloaded position of a partly loaded order makes it Courier loaded', async () => {
      await tc.call('PUT', SMART, { ...as, body: twoParcels('C-4') });
      await loadIntoLocker(tc, 'shop-a', 'C-4', { barcodes: ['C-4-A'] });
      const order = await orderRow(tc, 'shop-a', 'C-4');
      expect(order.state).toBe(0);
      expect((await tc.call('PUT', CANCEL, { ...as, body: { extId: 'C-4', barcode: 'C-4-B' } })).body).toEqual({ externalId: 'C-4', state: 3 });
      const after = await orderRow(tc, 'shop-a', 'C-4');
      expect(after.pickup_code_hash).toMatch(/^[0-9a-f]{64}$/);
      // Monday 12:00 Moscow + 72 h = Thursday 12:00, a working day.
      expect(after.hold_until).toBe(Date.parse('2030-03-07T12:00:00+03:00'));
      const notes = await notificationsOf(tc, order.id);
      expect(notes.map((n) => n.kind)).toEqual(['user-access-code', 'expiration-date-changes']);
      expect(notes[0]!.body).toEqual({ id: 'C-4', postamat_id: '1', access_code: expect.stringMatching(/^\d{6}$/) });
      expect(notes[1]!.body).toEqual({ id: 'C-4', event_dt: '2030-03-04T12:00:00+03:00', expire_dt: '2030-03-07T12:00:00+03:00' });
    });
  });
});
