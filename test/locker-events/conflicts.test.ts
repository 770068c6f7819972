/**
 * Facts that meet an intent which changed meanwhile (the locker was offline), one rule each
 * (docs/decisions.md, "Storage clock and notifications"): the fact is never rejected, nothing is
 * dropped, and the marketplace is told what happened.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { orderRow, parcelStates } from '../notify/helpers/outbox-reads.js';
import { KEYS, orderBody, startFactsCloud, type FactsCloud } from './facts-cloud.js';

const DT = '2030-03-05T12:00:00+03:00';
const loadedStatus = (id: string, barcode: string, cell: number) =>
  ['order-status', { postamat_id: '1', cell_id: cell, id, barcode, event_id: '3', status: 'Courier loaded', dt: DT }] as const;
const TEXT = { 2: 'Client received', 4: 'Courier picked up', 7: 'Awaiting return' } as const;
const status = (id: string, barcode: string, n: 2 | 4 | 7) => ['order-status', { id, barcode, event_id: String(n), status: TEXT[n], dt: DT }] as const;

describe.each(testEngines())('facts against a changed intent (%s)', (engine) => {
  let fc: FactsCloud;
  beforeEach(async () => {
    fc = await startFactsCloud(engine);
  });
  afterEach(async () => {
    await fc.stop();
  });

  /** Creates an order with reservation; returns its id and the reserved cell of each barcode. */
  async function create(externalId: string, barcodes = [`${externalId}-P1`]) {
    const parcels = barcodes.map((barcode) => ({ barcode, dimension: { length: 300, width: 200, height: 80 } }));
    const res = await fc.call('PUT', '/api/v4/auth/delivery/smartorder/create', { key: KEYS.shopA, body: orderBody(externalId, { parcels }) });
    expect(res.status).toBe(200);
    const cells = new Map<string, number>();
    for (const r of res.body.reserved as { cellId: number; barcodes: string[] }[]) for (const b of r.barcodes) cells.set(b, r.cellId);
    return { id: await fc.orderId(externalId), cells };
  }
  const cancel = (extId: string, barcode: string) => fc.call('PUT', '/api/v4/auth/delivery/order/place/cancel', { key: KEYS.shopA, body: { extId, barcode } });
  const load = (orderId: string, barcode: string, cellId: number) => fc.fact(1, { type: 'parcel.loaded', orderId, barcode, cellId, grantId: 'g' });

  it('a parcel loaded while its position was cancelled: kept for return, the rest of the order goes on', async () => {
    const { id, cells } = await create('X1', ['X1-P1', 'X1-P2']);
    const [c1, c2] = [cells.get('X1-P1')!, cells.get('X1-P2')!];
    expect((await cancel('X1', 'X1-P2')).status).toBe(200);
    await load(id, 'X1-P2', c2);
    expect(await parcelStates(fc.db, id)).toEqual({ 'X1-P1': 'pending', 'X1-P2': 'awaiting_return' });
    expect((await orderRow(fc.db, id)).state).toBe(0);
    await load(id, 'X1-P1', c1);
    expect((await orderRow(fc.db, id)).state).toBe(3);
    await fc.fact(1, { type: 'parcel.received', orderId: id, barcode: 'X1-P1', cellId: c1 });
    expect((await orderRow(fc.db, id)).state).toBe(6); // the customer's part is done; P2 goes back
    expect(await fc.confirm(1)).toBe(1);
    await fc.fact(1, { type: 'parcel.returned', orderId: id, barcode: 'X1-P2', cellId: c2, grantId: 'g2' });
    expect((await orderRow(fc.db, id)).state).toBe(4);
    const sent = await fc.sent(id);
    expect(sent.map(([k, b]) => `${k}:${String(b.barcode ?? '')}:${String(b.event_id ?? '')}`)).toEqual([
      'order-status:X1-P2:3',
      'order-status:X1-P1:3',
      'user-access-code::',
      'expiration-date-changes::',
      'order-status:X1-P1:2',
      'order-status:X1-P2:7',
      'order-status:X1-P2:4',
    ]);
    expect(sent[0]).toStrictEqual(loadedStatus('X1', 'X1-P2', c2));
  });

  it('a load after the order was cancelled: return initiated, 7, then the courier takes it back', async () => {
    const { id, cells } = await create('X2');
    const cell = cells.get('X2-P1')!;
    await cancel('X2', 'X2-P1');
    expect((await orderRow(fc.db, id)).state).toBe(5);
    await load(id, 'X2-P1', cell);
    expect((await orderRow(fc.db, id)).state).toBe(6);
    expect(await fc.confirm(1)).toBe(1);
    await fc.fact(1, { type: 'parcel.returned', orderId: id, barcode: 'X2-P1', cellId: cell, grantId: 'g2' });
    expect(await fc.sent(id)).toStrictEqual([loadedStatus('X2', 'X2-P1', cell), status('X2', 'X2-P1', 7), status('X2', 'X2-P1', 4)]);
    expect((await orderRow(fc.db, id)).state).toBe(4);
  });

  it('a load after the storage expired: status 3 and at once status 7 for the late parcel', async () => {
    const { id, cells } = await create('X3', ['X3-P1', 'X3-P2']);
    await cancel('X3', 'X3-P2');
    await load(id, 'X3-P1', cells.get('X3-P1')!);
    fc.clock.set((await orderRow(fc.db, id)).hold_until!);
    expect(await fc.expire()).toBe(1);
    expect(await fc.confirm(1)).toBe(1);
    const before = (await fc.sent(id)).length;
    await load(id, 'X3-P2', cells.get('X3-P2')!);
    const late = (await fc.sent(id)).slice(before);
    expect(late.map(([, b]) => [b.barcode, b.event_id])).toEqual([['X3-P2', '3'], ['X3-P2', '7']]);
    expect(await parcelStates(fc.db, id)).toEqual({ 'X3-P1': 'awaiting_return', 'X3-P2': 'awaiting_return' });
    expect((await orderRow(fc.db, id)).state).toBe(7);
  });

  it('a pickup after the code was revoked (6, then 7): status 2, the order ends received, no status 7 follows', async () => {
    const a = await create('X4');
    const b = await create('X5');
    await load(a.id, 'X4-P1', a.cells.get('X4-P1')!);
    await load(b.id, 'X5-P1', b.cells.get('X5-P1')!);
    fc.clock.set((await orderRow(fc.db, a.id)).hold_until!);
    expect(await fc.expire()).toBe(2);
    await fc.fact(1, { type: 'parcel.received', orderId: a.id, barcode: 'X4-P1', cellId: a.cells.get('X4-P1')! });
    expect((await orderRow(fc.db, a.id)).state).toBe(2);
    expect(await fc.confirm(1)).toBe(1); // only X5 was still returning
    await fc.fact(1, { type: 'parcel.received', orderId: b.id, barcode: 'X5-P1', cellId: b.cells.get('X5-P1')! });
    expect((await orderRow(fc.db, b.id)).state).toBe(2);
    const events = async (id: string) => (await fc.sent(id)).filter(([k]) => k === 'order-status').map(([, body]) => body.event_id);
    expect(await events(a.id)).toEqual(['3', '2']);
    expect(await events(b.id)).toEqual(['3', '7', '2']);
    const alerts = await fc.db.db.selectFrom('locker_alerts').select('kind').where('kind', '=', 'fact.pickup_after_revocation').execute();
    expect(alerts).toHaveLength(2);
  });

  it('a parcel of an unknown order: the cell needs an inventory, operators are alerted', async () => {
    const after = (await fc.commands(1)).at(-1)?.cseq ?? 0;
    await fc.fact(1, { type: 'parcel.loaded', orderId: 'no-such-order', barcode: 'ZZ', cellId: 2, grantId: 'g' });
    await fc.fact(1, { type: 'parcel.received', orderId: 'no-such-order', barcode: 'ZZ', cellId: 2 });
    const cell = await fc.db.db.selectFrom('cells').selectAll().where('locker_id', '=', 1).where('id', '=', 2).executeTakeFirstOrThrow();
    expect(cell.needs_inventory).toBe(1);
    expect(await fc.commands(1, after)).toMatchObject([{ type: 'cell.flags', cellId: 2, flags: ['needs_inventory'] }]);
    const alerts = await fc.call('GET', '/operator/alerts?postamatId=1', { operatorKey: KEYS.operator });
    // Both facts name the same cell: one alert, seen twice.
    expect(alerts.body.alerts.map((a: { kind: string; count: number }) => [a.kind, a.count])).toEqual([['fact.unknown_order', 2]]);
    expect(await fc.db.db.selectFrom('notifications').selectAll().execute()).toEqual([]);
  });

  it('a barcode the order does not have: recorded as a parcel to return, status 3 tells the marketplace', async () => {
    const { id } = await create('X6');
    await load(id, 'STRAY-1', 3);
    expect(await parcelStates(fc.db, id)).toEqual({ 'X6-P1': 'pending', 'STRAY-1': 'awaiting_return' });
    expect(await fc.sent(id)).toStrictEqual([loadedStatus('X6', 'STRAY-1', 3)]);
    expect((await orderRow(fc.db, id)).state).toBe(0);
  });

  it('facts that repeat a state change nothing; the same parcel in another cell has moved', async () => {
    const { id, cells } = await create('X7');
    const cell = cells.get('X7-P1')!;
    await load(id, 'X7-P1', cell);
    const sent = (await fc.sent(id)).length;
    await load(id, 'X7-P1', cell);
    expect(await fc.sent(id)).toHaveLength(sent);
    const other = cell === 3 ? 4 : 3;
    await load(id, 'X7-P1', other);
    expect((await fc.sent(id)).slice(sent)).toStrictEqual([loadedStatus('X7', 'X7-P1', other)]);
    const code = (await fc.sent(id)).find(([k]) => k === 'user-access-code');
    expect((await fc.sent(id)).filter(([k]) => k === 'user-access-code')).toEqual([code]);
    await fc.fact(1, { type: 'parcel.received', orderId: id, barcode: 'X7-P1', cellId: other });
    await fc.fact(1, { type: 'parcel.received', orderId: id, barcode: 'X7-P1', cellId: other });
    expect((await fc.sent(id)).filter(([, b]) => b.event_id === '2')).toHaveLength(1);
  });

  it('a load into a cell reserved for another order moves that reservation, or releases it when nothing fits', async () => {
    const small = await create('R1');
    const reserved = small.cells.get('R1-P1')!;
    const big = await fc.call('PUT', '/api/v4/auth/delivery/smartorder/create', {
      key: KEYS.shopA,
      body: orderBody('R2', { parcels: [{ barcode: 'R2-P1', dimension: { length: 450, width: 380, height: 380 } }] }),
    });
    expect(big.body.reserved).toEqual([{ cellId: 4, externalId: 'R2', barcodes: ['R2-P1'] }]);
    const loader = await fc.call('PUT', '/api/v4/auth/delivery/order/create', { key: KEYS.shopA, body: orderBody('L1', { parcels: [{ barcode: 'L1-P1' }, { barcode: 'L1-P2' }] }) });
    expect(loader.status).toBe(200);
    const l1 = await fc.orderId('L1');
    await load(l1, 'L1-P1', reserved);
    await load(l1, 'L1-P2', 4);
    const cellOf = async (orderId: string) => (await fc.db.db.selectFrom('parcels').select('cell_id').where('order_id', '=', orderId).executeTakeFirstOrThrow()).cell_id;
    const moved = await cellOf(small.id);
    expect(moved).not.toBeNull();
    expect(moved).not.toBe(reserved);
    expect(await cellOf(await fc.orderId('R2'))).toBeNull();
    const kinds = await fc.db.db.selectFrom('locker_alerts').select(['kind', 'detail']).where('kind', '=', 'reservation.displaced').execute();
    expect(kinds.map((k) => JSON.parse(k.detail) as unknown)).toEqual([
      { loadedOrderId: l1, moved: [{ barcode: 'R1-P1', cellId: moved }], released: [] },
      { loadedOrderId: l1, moved: [], released: ['R2-P1'] },
    ]);
  });

  it('a load at the locker an order was moved away from brings the order back', async () => {
    const { id, cells } = await create('M1');
    const update = await fc.call('PUT', '/api/v4/auth/delivery/order/update', { key: KEYS.shopA, body: { externalId: 'M1', postamatId: 2, parcels: [{ barcode: 'M1-P1', dimension: { length: 300, width: 200, height: 80 } }] } });
    expect(update.status).toBe(200);
    expect((await orderRow(fc.db, id)).locker_id).toBe(2);
    const commandsFor = await load(id, 'M1-P1', cells.get('M1-P1')!);
    expect(commandsFor).toEqual([2]);
    const order = await orderRow(fc.db, id);
    expect(order).toMatchObject({ locker_id: 1, state: 3 });
    expect((await fc.commands(2)).at(-1)).toMatchObject({ type: 'order.remove', orderId: id });
  });
});
