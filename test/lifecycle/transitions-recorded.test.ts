/** Every applied lifecycle row is recorded with the order, through the API and the locker's facts. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KEYS, orderBody } from '../cloud/helpers/fleet-fixtures.js';
import { commandsFor, orderRow } from '../cloud/helpers/db-queries.js';
import { loadIntoLocker, receiveByCustomer } from '../cloud/helpers/locker-facts.js';
import { type TestCloud, startTestCloud } from '../cloud/helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';
const CANCEL = '/api/v4/auth/delivery/order/place/cancel';
const EXTEND = '/api/v4/auth/delivery/order/extension';
const SMALL = { length: 300, width: 200, height: 80 };

describe.each(testEngines())('order transitions on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine);
  });
  afterAll(async () => tc.stop());
  beforeEach(async () => tc.reset());

  const as = { key: KEYS.shopA };
  const twoParcels = (id: string) => orderBody(id, { parcels: [{ barcode: `${id}-A`, dimension: SMALL }, { barcode: `${id}-B`, dimension: SMALL }] });

  async function transitions(orderId: string) {
    const rows = await tc.db.db.selectFrom('order_transitions').selectAll().where('order_id', '=', orderId).orderBy('seq').execute();
    return rows.map((r) => ({ seq: Number(r.seq), rule: r.rule, event: r.event, from: r.from_state, to: r.to_state, parcels: JSON.parse(r.parcels) as unknown }));
  }

  it('records one row per change, with the table row that made it', async () => {
    await tc.call('PUT', SMART, { ...as, body: twoParcels('T-1') });
    expect((await tc.call('PUT', CANCEL, { ...as, body: { extId: 'T-1', barcode: 'T-1-B' } })).body).toEqual({ externalId: 'T-1', state: 0 });
    await loadIntoLocker(tc, 'shop-a', 'T-1');
    expect((await tc.call('POST', EXTEND, { ...as, body: { extId: 'T-1' } })).status).toBe(200);
    await receiveByCustomer(tc, 'shop-a', 'T-1');
    // A refused request changes nothing and records nothing.
    expect((await tc.call('PUT', CANCEL, { ...as, body: { extId: 'T-1', barcode: 'T-1-A' } })).body).toEqual({ message: 'Packaging loaded or issued', resultCode: 211 });

    const order = await orderRow(tc, 'shop-a', 'T-1');
    expect(await transitions(order.id)).toEqual([
      { seq: 1, rule: 'C1', event: 'order.create', from: null, to: 0, parcels: [{ barcode: 'T-1-A', from: null, to: 'pending' }, { barcode: 'T-1-B', from: null, to: 'pending' }] },
      { seq: 2, rule: 'X1', event: 'position.cancel', from: 0, to: 0, parcels: [{ barcode: 'T-1-B', from: 'pending', to: 'cancelled' }] },
      { seq: 3, rule: 'L1', event: 'parcel.loaded', from: 0, to: 3, parcels: [{ barcode: 'T-1-A', from: 'pending', to: 'loaded' }] },
      { seq: 4, rule: 'E1', event: 'storage.extend', from: 3, to: 3, parcels: [] },
      { seq: 5, rule: 'T6', event: 'parcel.received', from: 3, to: 2, parcels: [{ barcode: 'T-1-A', from: 'loaded', to: 'received' }] },
    ]);
    expect(order.state).toBe(2);
  });

  it("cancelling the last loaded position remembers the cseq of the upsert that revoked the code", async () => {
    await tc.call('PUT', SMART, { ...as, body: orderBody('T-2') });
    await loadIntoLocker(tc, 'shop-a', 'T-2');
    const { id } = await orderRow(tc, 'shop-a', 'T-2');
    const barcode = (await tc.db.db.selectFrom('parcels').select('barcode').where('order_id', '=', id).executeTakeFirstOrThrow()).barcode;
    expect((await tc.call('PUT', CANCEL, { ...as, body: { extId: 'T-2', barcode } })).body).toEqual({ externalId: 'T-2', state: 6 });

    const upserts = (await commandsFor(tc, 1)).filter((c) => c.type === 'order.upsert' && c.order.orderId === id);
    const revoking = upserts.at(-1)!;
    expect(revoking.type === 'order.upsert' && revoking.order).toMatchObject({ state: 6, pickupCodeHash: null });
    const revocation = await tc.db.db.selectFrom('order_revocations').selectAll().where('order_id', '=', id).executeTakeFirstOrThrow();
    expect(Number(revocation.revoke_cseq)).toBe(revoking.cseq);
    expect((await transitions(id)).map((t) => t.rule)).toEqual(['C1', 'L1', 'X7']);
  });
});
