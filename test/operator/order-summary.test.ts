/**
 * The order's summary through real HTTP: state, where its parcels are, the deadline, whether a
 * pick-up code is active and was sent, and each notification with whether the marketplace got it;
 * never the code nor the whole phone number.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadIntoLocker } from '../cloud/helpers/locker-facts.js';
import { testEngines } from '../helpers/cloud-db.js';
import { type FactsCloud, KEYS, orderBody, startFactsCloud } from '../locker-events/facts-cloud.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';

describe.each(testEngines())("the order's summary on %s", (engine) => {
  let fc: FactsCloud;
  beforeAll(async () => {
    fc = await startFactsCloud(engine);
  });
  afterAll(async () => fc.stop());
  beforeEach(async () => fc.reset());

  const op = { operatorKey: KEYS.operator };

  it('tells state, cells, deadline, code and what the marketplace was told, delivered, failing or on its way', async () => {
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('SUM-1') })).status).toBe(200);
    const orderId = await fc.orderId('SUM-1');
    const fresh = await fc.call('GET', `/operator/orders/${orderId}`, op);
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ externalId: 'SUM-1', state: 0, holdUntil: null, code: { active: false, sentAt: null, delivery: null }, phones: ['+7******4567'] });
    expect(fresh.body.parcels).toEqual([{ barcode: 'SUM-1-P1', state: 'pending', cellId: expect.any(Number) }]);

    await loadIntoLocker(fc, 'shop-a', 'SUM-1');
    const rows = await fc.db.db.selectFrom('notifications').select(['id', 'kind', 'body']).where('order_id', '=', orderId).orderBy('id').execute();
    const code = (JSON.parse(rows.find((r) => r.kind === 'user-access-code')!.body) as { access_code: string }).access_code;
    // The receiver got the first deadline, is failing the code, and has not been tried for the extension's deadline.
    const firstDeadline = rows.find((r) => r.kind === 'expiration-date-changes')!;
    const codeRow = rows.find((r) => r.kind === 'user-access-code')!;
    const now = fc.clock.now();
    await fc.db.db.updateTable('notifications').set({ delivered_at: now, attempts: 1, last_status: 200 }).where('id', '=', firstDeadline.id).execute();
    await fc.db.db.updateTable('notifications').set({ failing_since: now, attempts: 7, last_status: 503, last_error: 'HTTP 503' }).where('id', '=', codeRow.id).execute();
    expect((await fc.call('POST', `/operator/orders/${orderId}/extend`, { ...op, body: { days: 2, reason: 'customer abroad' } })).status).toBe(200);

    const summary = await fc.call('GET', `/operator/orders/${orderId}`, op);
    expect(summary.status).toBe(200);
    const s = summary.body;
    expect(s).toMatchObject({ orderId, lockerId: 1, lockerName: 'Locker One', timezone: expect.any(String), state: 3, code: { active: true, delivery: 'failing' } });
    expect(s.parcels).toEqual([{ barcode: 'SUM-1-P1', state: 'loaded', cellId: expect.any(Number) }]);
    expect(Date.parse(s.holdUntil)).toBeGreaterThan(now);
    const told = s.marketplace as { notificationId: number; kind: string; said: string | null; delivery: string; lastError: string | null }[];
    expect(told.map((n) => n.kind)).toEqual(['expiration-date-changes', 'expiration-date-changes', 'user-access-code']);
    expect(told[0]).toMatchObject({ delivery: 'pending', attempts: 0 });
    expect(Date.parse(told[0]!.said!)).toBe(Date.parse(s.holdUntil));
    expect(told[1]).toMatchObject({ notificationId: Number(firstDeadline.id), delivery: 'delivered', said: (JSON.parse(firstDeadline.body) as { expire_dt: string }).expire_dt });
    expect(told[2]).toMatchObject({ notificationId: Number(codeRow.id), said: null, delivery: 'failing', attempts: 7, lastStatus: 503, lastError: 'HTTP 503' });
    expect(JSON.stringify(s)).not.toContain(code);
    expect(JSON.stringify(s)).not.toContain('9161234567');
  });

  it('answers an unknown order with the error envelope', async () => {
    const answer = await fc.call('GET', '/operator/orders/00000000-0000-4000-8000-0000000000ff', op);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ resultCode: 3, message: expect.stringContaining('не найден') });
    expect((await fc.call('GET', `/operator/orders/${'x'.repeat(65)}`, op)).status).toBe(400);
  });
});
