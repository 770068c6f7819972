/**
 * The console's views and actions through real HTTP: overview, the locker's grid, order search
 * with masked phones, the order's timeline of every kind, alerts deduplicated, acknowledged and
 * resolved, the storage extension, and an audit entry per action.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { type FactsCloud, KEYS, orderBody, startFactsCloud } from '../locker-events/facts-cloud.js';
import { loadIntoLocker } from '../cloud/helpers/locker-facts.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';

describe.each(testEngines())('operator console views on %s', (engine) => {
  let fc: FactsCloud;
  beforeAll(async () => {
    fc = await startFactsCloud(engine);
  });
  afterAll(async () => fc.stop());
  beforeEach(async () => {
    await fc.reset();
    await fc.db.db.deleteFrom('locker_alerts').execute();
    await fc.db.db.deleteFrom('operator_audit').execute();
  });

  const op = { operatorKey: KEYS.operator };
  const get = async (path: string) => {
    const answer = await fc.call('GET', path, op);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };

  it('shows the overview and the locker list with free cells per size', async () => {
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('V-1') })).status).toBe(200);
    await fc.fact(1, { type: 'door.alarm', cellId: 2, kind: 'opened_unexpectedly' });
    const overview = await get('/operator/overview');
    expect(overview).toMatchObject({
      lockers: { total: 3, online: 0, offline: 3 }, // locker 4 is inactive
      openAlerts: { critical: 1, warning: 0, info: 0 },
      cells: { needsInspection: 1, blocked: 0 }, // locker 1's cell 5 is dirty
    });
    const list = await get('/operator/lockers?pageSize=2');
    expect(list).toMatchObject({ total: 4, page: 1, pageSize: 2 });
    expect(list.items[0]).toMatchObject({ lockerId: 1, name: 'Locker One', online: false, since: null, openAlerts: 1 });
    // Locker 1: small cells 1, 2, 6 free (1 reserved by V-1? it took a small cell), 5 dirty; medium 3; large 4.
    const free = list.items[0].freeToday as Record<string, number>;
    expect(free['400x100']).toBe(2);
    expect(free['400x200']).toBe(1);
    expect(free['400x400']).toBe(1);
    expect((await get('/operator/lockers?alarms=open')).items.map((l: { lockerId: number }) => l.lockerId)).toEqual([1]);
    expect((await get('/operator/lockers?query=locker%20one')).total).toBe(1);
  });

  it("lays out the locker's cells with their states", async () => {
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('G-1') })).status).toBe(200);
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('G-2') })).status).toBe(200);
    await loadIntoLocker(fc, 'shop-a', 'G-2');
    expect((await fc.call('PUT', '/operator/postamats/1/cells/4/flags', { ...op, body: { blocked: true, reason: 'hinge' } })).status).toBe(200);
    await fc.fact(1, { type: 'door.alarm', cellId: 3, kind: 'left_open' });
    const locker = await get('/operator/lockers/1');
    const states = Object.fromEntries(locker.grid.map((c: { cellId: number; state: string }) => [c.cellId, c.state]));
    expect(states).toEqual({ 1: 'reserved', 2: 'occupied', 3: 'free', 4: 'blocked', 5: 'needs_inspection', 6: 'free' });
    expect(locker.grid[2]).toMatchObject({ cellId: 3, column: 1, row: 3, size: '400x200', depth: 500, doorOpen: true });
    expect(locker.grid[0]).toMatchObject({ doorOpen: null, orders: [{ externalId: 'G-1', marketplaceId: 'shop-a' }] });
  });

  it('finds orders by externalId, barcode or phone suffix and masks the phone', async () => {
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('FIND-77') })).status).toBe(200);
    for (const query of ['FIND-77', 'D-77', 'FIND-77-P1', '4567', '+79161234567']) {
      const found = await get(`/operator/orders?query=${encodeURIComponent(query)}`);
      expect(found.items, query).toMatchObject([{ externalId: 'FIND-77', marketplaceId: 'shop-a', phones: ['+7******4567'], barcodes: ['FIND-77-P1'] }]);
      expect(JSON.stringify(found)).not.toContain('9161234567');
    }
    expect((await get('/operator/orders?query=nothing-like-it')).total).toBe(0);
  });

  it("merges the order's API calls, transitions, commands, events, alerts and notifications into one timeline; extends it with an audit entry", async () => {
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('T-1') })).status).toBe(200);
    await loadIntoLocker(fc, 'shop-a', 'T-1');
    const orderId = await fc.orderId('T-1');
    await fc.fact(1, { type: 'parcel.received', orderId, barcode: 'NOT-OF-T-1', cellId: 3 }); // a barcode the order does not have: an alert
    expect((await fc.call('POST', '/api/v4/auth/delivery/order/extension', { key: KEYS.shopA, body: { extId: 'T-1' } })).status).toBe(200);
    expect((await fc.call('POST', '/api/v4/auth/delivery/order/extension', { key: KEYS.shopA, body: { extId: 'T-1' } })).status).toBe(200);
    const extended = await fc.call('POST', `/operator/orders/${orderId}/extend`, { ...op, body: { days: 2, reason: 'customer asked' } });
    expect(extended).toMatchObject({ status: 200, body: { orderId, externalId: 'T-1' } });
    // The notifications: one attempt answered by a receiver (recorded as the dispatcher records it).
    const n = await fc.db.db.selectFrom('notifications').select(['id']).where('order_id', '=', orderId).orderBy('id').executeTakeFirstOrThrow();
    await fc.db.db.insertInto('notification_attempts').values({ notification_id: n.id, order_id: orderId, at: fc.clock.now(), status: 503, error: 'HTTP 503' }).execute();

    const timeline = await get(`/operator/orders/${orderId}/timeline`);
    const kinds = new Set(timeline.entries.map((e: { kind: string }) => e.kind));
    expect([...kinds].sort()).toEqual(['alert', 'api_call', 'command', 'locker_event', 'notification', 'notification_attempt', 'transition']);
    const calls = timeline.entries.filter((e: { kind: string }) => e.kind === 'api_call').map((e: { detail: { operation: string; resultCode: number } }) => e.detail);
    expect(calls).toMatchObject([
      { operation: 'smartorder/create', resultCode: 0 },
      { operation: 'order/extension', resultCode: 0 },
      { operation: 'order/extension', resultCode: 0 },
    ]);
    const ats = timeline.entries.map((e: { at: string }) => e.at);
    expect([...ats].sort()).toEqual(ats);
    expect(timeline.entries.find((e: { kind: string }) => e.kind === 'notification_attempt')).toMatchObject({ detail: { status: 503, error: 'HTTP 503' } });

    const audit = await get(`/operator/audit?target=${encodeURIComponent(`order:${orderId}`)}`);
    expect(audit.items).toMatchObject([{ operator: 'ops', action: 'order.extend', reason: 'customer asked', detail: { externalId: 'T-1' } }]);
    // Refused like the marketplace's extension outside Courier loaded, with nothing audited.
    expect((await fc.call('POST', `/operator/orders/no-such-order/extend`, { ...op, body: { days: 1, reason: 'x' } })).body.resultCode).toBe(250);
  });

  it('keeps one alert per jammed door with a count; acknowledge and resolve are audited', async () => {
    for (let i = 0; i < 3; i++) await fc.fact(1, { type: 'cell.open', cellId: 2, cseq: 1, outcome: 'jammed' } as never);
    const alerts = (await get('/operator/alerts?postamatId=1')).alerts;
    expect(alerts).toMatchObject([{ kind: 'cell.open', severity: 'critical', status: 'open', count: 3, cellId: 2, dedupKey: 'cell.open:1:2' }]);
    const id = alerts[0].id as number;
    const ack = await fc.call('POST', `/operator/alerts/${id}/acknowledge`, { ...op, body: {} });
    expect(ack.body).toMatchObject({ status: 'acknowledged', acknowledgedBy: 'ops' });
    await fc.fact(1, { type: 'cell.open', cellId: 2, cseq: 1, outcome: 'jammed' } as never);
    expect((await get('/operator/alerts?postamatId=1')).alerts).toMatchObject([{ id, status: 'acknowledged', count: 4 }]);
    expect((await fc.call('POST', `/operator/alerts/${id}/resolve`, { ...op, body: {} })).status).toBe(400); // a reason is needed
    const resolved = await fc.call('POST', `/operator/alerts/${id}/resolve`, { ...op, body: { reason: 'latch replaced' } });
    expect(resolved.body).toMatchObject({ status: 'resolved', resolvedBy: 'ops', resolveReason: 'latch replaced' });
    // A repeat after the resolution is a new alert.
    await fc.fact(1, { type: 'cell.open', cellId: 2, cseq: 1, outcome: 'jammed' } as never);
    expect((await get('/operator/alerts?postamatId=1&status=open')).alerts).toMatchObject([{ count: 1 }]);
    expect((await get(`/operator/lockers/1/alerts?pageSize=1`))).toMatchObject({ total: 2, items: [{ status: 'open' }] });

    const audit = await get(`/operator/audit?target=alert:${id}`);
    expect(audit.items.map((e: { action: string; reason: string | null }) => [e.action, e.reason])).toEqual([
      ['alert.resolve', 'latch replaced'],
      ['alert.acknowledge', null],
    ]);
  });

  it('audits cell flags, cell opens refused nothing, and redelivery', async () => {
    expect((await fc.call('PUT', '/operator/postamats/1/cells/2/flags', { ...op, body: { blocked: true, reason: 'glass broken' } })).status).toBe(200);
    expect((await fc.call('PUT', '/operator/postamats/1/cells/2/flags', { ...op, body: { blocked: false } })).status).toBe(200);
    const audit = await get('/operator/audit?target=locker:1/cell:2');
    expect(audit.items).toMatchObject([
      { action: 'cell.flags', reason: null, detail: { before: ['blocked'], after: [] } },
      { action: 'cell.flags', reason: 'glass broken', detail: { before: [], after: ['blocked'] } },
    ]);
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('R-1') })).status).toBe(200);
    const redelivered = await fc.call('POST', '/operator/notifications/redeliver', { ...op, body: { failing: true, reason: 'receiver back' } });
    expect(redelivered.status).toBe(200);
    const ids = (await fc.db.db.selectFrom('notifications').select('id').execute()).map((r) => Number(r.id));
    if (ids.length > 0) {
      expect((await fc.call('POST', '/operator/notifications/redeliver', { ...op, body: { ids, reason: 'receiver back' } })).status).toBe(200);
      expect((await get('/operator/audit?target=notifications')).items).toMatchObject([{ action: 'notifications.redeliver', reason: 'receiver back' }]);
    }
  });
});
