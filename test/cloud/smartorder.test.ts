import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ParcelState } from '../../shared/src/enums.js';
import { commandBodySchema } from '../../shared/src/protocol.js';
import { KEYS, orderBody } from './helpers/fleet-fixtures.js';
import { expireToAwaitingReturn, loadIntoLocker } from './helpers/locker-facts.js';
import { type TestCloud, startTestCloud } from './helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';
const PLAIN = '/api/v4/auth/delivery/order/create';
const SMALL = { length: 300, width: 200, height: 80 }; // fits every cell
const LARGE = { length: 390, width: 390, height: 390 }; // fits only the large cell 4
const HUGE = { length: 450, width: 450, height: 450 }; // fits no cell of locker 1

const withParcels = (id: string, dims: Record<string, number>[], extra: Record<string, unknown> = {}) =>
  orderBody(id, { parcels: dims.map((dimension, i) => ({ barcode: `${id}-P${i + 1}`, dimension })), ...extra });

describe.each(testEngines())('order creation on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine);
  });
  afterAll(async () => tc.stop());
  beforeEach(async () => tc.reset());

  const smart = (body: unknown, key: string = KEYS.shopA) => tc.call('PUT', SMART, { key, body });
  const plain = (body: unknown, key: string = KEYS.shopA) => tc.call('PUT', PLAIN, { key, body });
  const parcelRows = (externalId: string) =>
    tc.db.db
      .selectFrom('parcels')
      .innerJoin('orders', 'orders.id', 'parcels.order_id')
      .select(['parcels.barcode', 'parcels.cell_id', 'parcels.state'])
      .where('orders.external_id', '=', externalId)
      .orderBy('parcels.position')
      .execute();

  it('reserves the smallest fitting cell and records the order for the locker', async () => {
    const res = await smart(withParcels('S-1', [SMALL]));
    expect(res).toEqual({
      status: 200,
      body: { reserved: [{ cellId: 1, externalId: 'S-1', barcodes: ['S-1-P1'] }], temporarilyRejectedItems: [], permanentlyRejectedItems: [], toReturn: [] },
    });
    expect(await parcelRows('S-1')).toEqual([{ barcode: 'S-1-P1', cell_id: 1, state: ParcelState.Pending }]);
    const commands = await tc.db.db.selectFrom('locker_commands').selectAll().where('locker_id', '=', 1).where('type', '=', 'order.upsert').execute();
    expect(commands).toHaveLength(1);
    const body = commandBodySchema.parse(JSON.parse(commands[0]!.body));
    expect(body.type === 'order.upsert' && body.order).toMatchObject({
      externalId: 'S-1',
      marketplaceId: 'shop-a',
      state: 0,
      dateDelivery: '2030-03-05',
      holdUntil: null,
      pickupCodeHash: null,
      parcels: [{ barcode: 'S-1-P1', cellId: 1, state: 'pending', dimension: SMALL, additionalBarcodes: [] }],
    });
  });

  it('reports parcels too big for every cell as permanently rejected, and mixed outcomes', async () => {
    const none = await smart(withParcels('S-2', [HUGE]));
    expect(none.body).toEqual({ reserved: [], temporarilyRejectedItems: [], permanentlyRejectedItems: ['S-2-P1'], toReturn: [] });
    const mixed = await smart(withParcels('S-3', [SMALL, HUGE]));
    expect(mixed.body).toEqual({
      reserved: [{ cellId: 1, externalId: 'S-3', barcodes: ['S-3-P1'] }],
      temporarilyRejectedItems: [],
      permanentlyRejectedItems: ['S-3-P2'],
      toReturn: [],
    });
  });

  it('reports parcels that fit a taken cell as temporarily rejected (capacity exhausted)', async () => {
    expect((await smart(withParcels('S-4', [LARGE]))).body.reserved).toEqual([{ cellId: 4, externalId: 'S-4', barcodes: ['S-4-P1'] }]);
    const full = await smart(withParcels('S-5', [LARGE]));
    expect(full.body).toEqual({ reserved: [], temporarilyRejectedItems: ['S-5-P1'], permanentlyRejectedItems: [], toReturn: [] });
    const partial = await smart(withParcels('S-6', [SMALL, LARGE]));
    expect(partial.body.reserved).toEqual([{ cellId: 1, externalId: 'S-6', barcodes: ['S-6-P1'] }]);
    expect(partial.body.temporarilyRejectedItems).toEqual(['S-6-P2']);
  });

  it('never uses flagged cells or cells of another marketplace segment', async () => {
    const taken = new Set<number>();
    for (let i = 0; i < 6; i++) {
      const res = await smart(withParcels(`S-F${i}`, [SMALL]));
      for (const r of res.body.reserved as { cellId: number }[]) taken.add(r.cellId);
    }
    // Shop A may use cells 1-4; 5 is dirty, 6 belongs to shop-b's segment.
    expect([...taken].sort()).toEqual([1, 2, 3, 4]);
    const b = await smart(withParcels('S-B1', [SMALL]), KEYS.shopB);
    expect(b.body.reserved).toEqual([{ cellId: 6, externalId: 'S-B1', barcodes: ['S-B1-P1'] }]);
  });

  it("counts the marketplace's Awaiting-return cells as free and lists those orders in toReturn", async () => {
    await smart(withParcels('S-R', [LARGE]));
    await loadIntoLocker(tc, 'shop-a', 'S-R');
    await expireToAwaitingReturn(tc, 'shop-a', 'S-R');
    const toReturn = [{ cellId: 4, externalId: 'S-R', barcodes: ['S-R-P1'] }];
    const next = await smart(withParcels('S-7', [LARGE]));
    expect(next.body).toEqual({ reserved: [{ cellId: 4, externalId: 'S-7', barcodes: ['S-7-P1'] }], temporarilyRejectedItems: [], permanentlyRejectedItems: [], toReturn });
    // toReturn comes with every outcome, even when nothing is reserved.
    const after = await smart(withParcels('S-8', [LARGE]));
    expect(after.body).toEqual({ reserved: [], temporarilyRejectedItems: ['S-8-P1'], permanentlyRejectedItems: [], toReturn });
    // Another marketplace's courier does not empty shop-a's cell: for shop-b it stays taken and unlisted.
    const b = await smart(withParcels('S-B2', [LARGE]), KEYS.shopB);
    expect(b.body).toEqual({ reserved: [], temporarilyRejectedItems: ['S-B2-P1'], permanentlyRejectedItems: [], toReturn: [] });
  });

  it('gives a broken locker no free cells', async () => {
    const res = await smart(withParcels('S-X', [SMALL], { postamatId: 3 }));
    expect(res.body).toEqual({ reserved: [], temporarilyRejectedItems: ['S-X-P1'], permanentlyRejectedItems: [], toReturn: [] });
    const p = await plain(withParcels('S-Y', [SMALL], { postamatId: 3 }));
    expect(p).toEqual({ status: 400, body: expect.objectContaining({ message: 'Not cells for all parcels', resultCode: 32 }) });
  });

  it('answers a replay with the stored answer and refuses another body under the same externalId', async () => {
    const body = withParcels('S-I', [SMALL]);
    const first = await smart(body);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const replay = await smart(reordered);
    expect(replay).toEqual(first);
    const orders = await tc.db.db.selectFrom('orders').select('id').where('external_id', '=', 'S-I').execute();
    expect(orders).toHaveLength(1);
    const upserts = await tc.db.db.selectFrom('locker_commands').select('cseq').where('type', '=', 'order.upsert').execute();
    expect(upserts).toHaveLength(1);

    const changed = await smart({ ...body, dateDelivery: '2030-03-06' });
    expect(changed.status).toBe(400);
    expect(changed.body.resultCode).toBe(3);
    expect(changed.body.message).toContain('S-I');
    const otherOperation = await plain(body);
    expect(otherOperation.body.resultCode).toBe(3);
  });

  it('ends concurrent identical creates in one order and never double-books a cell', async () => {
    const body = withParcels('S-C', [SMALL]);
    const same = await Promise.all(Array.from({ length: 6 }, () => smart(body)));
    expect(new Set(same.map((r) => JSON.stringify(r)))).toEqual(new Set([JSON.stringify(same[0])]));
    expect(same[0]!.status).toBe(200);
    const distinct = await Promise.all(Array.from({ length: 8 }, (_, i) => smart(withParcels(`S-D${i}`, [SMALL]))));
    const reserved = distinct.flatMap((r) => r.body.reserved as { cellId: number }[]).map((r) => r.cellId);
    expect(reserved).toHaveLength(3); // cells 2, 3, 4 were left after S-C took cell 1
    expect(new Set(reserved).size).toBe(3);
    const rows = await tc.db.db.selectFrom('parcels').select('cell_id').where('cell_id', 'is not', null).execute();
    expect(new Set(rows.map((r) => r.cell_id)).size).toBe(rows.length);
    expect(await tc.db.db.selectFrom('orders').select('id').where('external_id', '=', 'S-C').execute()).toHaveLength(1);
  });

  it('order/create holds no cell but needs fitting free cells now (else 32, nothing stored)', async () => {
    const ok = await plain(withParcels('P-1', [LARGE]));
    expect(ok).toEqual({ status: 200, body: { externalId: 'P-1', state: 0 } });
    expect(await parcelRows('P-1')).toEqual([{ barcode: 'P-1-P1', cell_id: null, state: ParcelState.Pending }]);
    // Nothing was held: a reservation still gets the large cell ...
    expect((await smart(withParcels('S-L', [LARGE]))).body.reserved).toEqual([{ cellId: 4, externalId: 'S-L', barcodes: ['S-L-P1'] }]);
    // ... and after that no large parcel fits a free cell.
    expect(await plain(withParcels('P-2', [LARGE]))).toEqual({ status: 400, body: expect.objectContaining({ message: 'Not cells for all parcels', resultCode: 32 }) });
    expect(await plain(withParcels('P-3', [SMALL, HUGE]))).toEqual({ status: 400, body: expect.objectContaining({ message: 'Not cells for all parcels', resultCode: 32 }) });
    expect(await tc.db.db.selectFrom('orders').select('id').where('external_id', 'in', ['P-2', 'P-3']).execute()).toHaveLength(0);
    // A replay of order/create is answered from the stored answer.
    expect(await plain(withParcels('P-1', [LARGE]))).toEqual(ok);
  });
});
