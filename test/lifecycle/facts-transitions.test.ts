/**
 * The locker's facts and the storage clock change orders through the lifecycle rows too: each
 * change is recorded with the id of the row that made it (docs/lifecycle.md).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { KEYS, orderBody, startFactsCloud, type FactsCloud } from '../locker-events/facts-cloud.js';

const SMALL = { length: 300, width: 200, height: 80 };

describe.each(testEngines())('lifecycle rows of facts and the clock (%s)', (engine) => {
  let fc: FactsCloud;
  beforeEach(async () => {
    fc = await startFactsCloud(engine);
  });
  afterEach(async () => {
    await fc.stop();
  });

  async function create(externalId: string, barcodes = [`${externalId}-P1`]) {
    const parcels = barcodes.map((barcode) => ({ barcode, dimension: SMALL }));
    const res = await fc.call('PUT', '/api/v4/auth/delivery/smartorder/create', { key: KEYS.shopA, body: orderBody(externalId, { parcels }) });
    expect(res.status).toBe(200);
    const cells = new Map<string, number>();
    for (const r of res.body.reserved as { cellId: number; barcodes: string[] }[]) for (const b of r.barcodes) cells.set(b, r.cellId);
    return { id: await fc.orderId(externalId), cells };
  }
  const load = (orderId: string, barcode: string, cellId: number) => fc.fact(1, { type: 'parcel.loaded', orderId, barcode, cellId, grantId: 'g' });
  async function rules(orderId: string) {
    const rows = await fc.db.db.selectFrom('order_transitions').select(['rule', 'from_state', 'to_state']).where('order_id', '=', orderId).orderBy('seq').execute();
    return rows.map((r) => `${r.rule}:${r.from_state ?? '-'}>${r.to_state}`);
  }

  it('a late load of a cancelled order, its return confirmed and collected', async () => {
    const { id, cells } = await create('A1');
    await fc.call('PUT', '/api/v4/auth/delivery/order/place/cancel', { key: KEYS.shopA, body: { extId: 'A1', barcode: 'A1-P1' } });
    await load(id, 'A1-P1', cells.get('A1-P1')!);
    expect(await fc.confirm(1)).toBe(1);
    await fc.fact(1, { type: 'parcel.returned', orderId: id, barcode: 'A1-P1', cellId: cells.get('A1-P1')!, grantId: 'g2' });
    expect(await rules(id)).toEqual(['C1:->0', 'X3:0>5', 'L4:5>6', 'RC1:6>7', 'R6:7>4']);
  });

  it('storage expiry, and a pickup reported for a parcel never reported loaded', async () => {
    const loaded = await create('B1');
    const taken = await create('B2');
    await load(loaded.id, 'B1-P1', loaded.cells.get('B1-P1')!);
    fc.clock.set('2030-03-20T09:00:00Z');
    expect(await fc.expire()).toBe(1);
    await fc.fact(1, { type: 'parcel.received', orderId: taken.id, barcode: 'B2-P1', cellId: taken.cells.get('B2-P1')! });
    expect(await rules(loaded.id)).toEqual(['C1:->0', 'L1:0>3', 'SE1:3>6']);
    expect(await rules(taken.id)).toEqual(['C1:->0', 'T6:0>2']);
  });

  it('a load into a reserved cell displaces that reservation; a load at the old locker brings a moved order back', async () => {
    const reserved = await create('D1');
    const cell = reserved.cells.get('D1-P1')!;
    await fc.call('PUT', '/api/v4/auth/delivery/order/create', { key: KEYS.shopA, body: orderBody('D2', { parcels: [{ barcode: 'D2-P1' }] }) });
    const loader = await fc.orderId('D2');
    await fc.call('PUT', '/api/v4/auth/delivery/order/update', { key: KEYS.shopA, body: { externalId: 'D2', postamatId: 2, parcels: [{ barcode: 'D2-P1' }] } });
    expect(await load(loader, 'D2-P1', cell)).toEqual([2]);
    expect(await rules(loader)).toEqual(['C1:->0', 'U1:0>0', 'L1:0>3']);
    expect(await rules(reserved.id)).toEqual(['C1:->0', 'D1:0>0']);
  });
});
