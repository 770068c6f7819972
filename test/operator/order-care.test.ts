/**
 * Customer service on an order through real HTTP: a new pick-up code (the locker gets only the
 * new one, the marketplace a user-access-code with it), and the return started early (Return
 * initiated, the code revoked, Awaiting return with order-status 7 once the locker applied it).
 * Each is a lifecycle row in the order's transitions and an audit entry with the note.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadIntoLocker } from '../cloud/helpers/locker-facts.js';
import { testEngines } from '../helpers/cloud-db.js';
import { type FactsCloud, KEYS, orderBody, startFactsCloud } from '../locker-events/facts-cloud.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';

describe.each(testEngines())('customer service on an order on %s', (engine) => {
  let fc: FactsCloud;
  beforeAll(async () => {
    fc = await startFactsCloud(engine);
  });
  afterAll(async () => fc.stop());
  beforeEach(async () => {
    await fc.reset();
    await fc.db.db.deleteFrom('operator_audit').execute();
  });

  const op = { operatorKey: KEYS.operator };
  const loaded = async (externalId: string): Promise<string> => {
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody(externalId) })).status).toBe(200);
    await loadIntoLocker(fc, 'shop-a', externalId);
    return fc.orderId(externalId);
  };
  const codesSent = async (orderId: string) => (await fc.sent(orderId)).filter(([kind]) => kind === 'user-access-code').map(([, body]) => String(body.access_code));
  const transitions = (orderId: string) => fc.db.db.selectFrom('order_transitions').select(['rule', 'event', 'from_state', 'to_state']).where('order_id', '=', orderId).orderBy('seq').execute();
  const upsertHashes = async (orderId: string) =>
    (await fc.commands(1)).filter((c) => c.type === 'order.upsert' && (c as { order?: { orderId?: string } }).order?.orderId === orderId).map((c) => JSON.stringify(c).match(/"pickupCodeHash":("[^"]*"|null)/)?.[1]);

  it('issues a new code: the locker gets only the new one, the marketplace is told it, the change is a lifecycle row and audited', async () => {
    const orderId = await loaded('CARE-1');
    const [oldCode] = await codesSent(orderId);
    const hashesBefore = await upsertHashes(orderId);
    const answer = await fc.call('POST', `/operator/orders/${orderId}/code`, { ...op, body: { reason: 'customer lost the SMS', note: 'called the desk at 10:05' } });
    expect(answer).toMatchObject({ status: 200, body: { orderId, externalId: 'CARE-1', state: 3, rule: 'CR1' } });
    const codes = await codesSent(orderId);
    expect(codes).toHaveLength(2);
    expect(codes[1]).not.toBe(oldCode);
    expect(JSON.stringify(answer.body)).not.toContain(codes[1]);
    const hashes = await upsertHashes(orderId);
    expect(hashes.length).toBe(hashesBefore.length + 1);
    expect(hashes.at(-1)).not.toBe(hashesBefore.at(-1));
    expect(hashes.at(-1)).not.toBe('null');
    expect((await transitions(orderId)).at(-1)).toMatchObject({ rule: 'CR1', event: 'code.regenerate', from_state: 3, to_state: 3 });
    const audit = await fc.call('GET', `/operator/audit?orderId=${orderId}`, op);
    expect(audit.body.items).toMatchObject([{ action: 'order.code', reason: 'customer lost the SMS', note: 'called the desk at 10:05', lockerId: 1, detail: { rule: 'CR1', from: 3, to: 3 } }]);
    expect(JSON.stringify(audit.body)).not.toContain(codes[1]);
    // The summary says the code is active and was sent again.
    const summary = await fc.call('GET', `/operator/orders/${orderId}`, op);
    expect(summary.body.code).toMatchObject({ active: true, delivery: 'pending' });
  });

  it('starts the return early: Return initiated with the code revoked, Awaiting return and order-status 7 once the locker applied it', async () => {
    const orderId = await loaded('CARE-2');
    const answer = await fc.call('POST', `/operator/orders/${orderId}/return`, { ...op, body: { reason: 'refused by the customer' } });
    expect(answer).toMatchObject({ status: 200, body: { state: 6, rule: 'OR1' } });
    const summary = await fc.call('GET', `/operator/orders/${orderId}`, op);
    expect(summary.body).toMatchObject({ state: 6, code: { active: false }, parcels: [{ state: 'awaiting_return' }] });
    expect((await upsertHashes(orderId)).at(-1)).toBe('null');
    expect(await fc.confirm(1)).toBe(1);
    expect((await fc.call('GET', `/operator/orders/${orderId}`, op)).body.state).toBe(7);
    expect((await fc.sent(orderId)).filter(([kind, body]) => kind === 'order-status' && body.event_id === '7')).toHaveLength(1);
    expect((await transitions(orderId)).slice(-2)).toMatchObject([
      { rule: 'OR1', event: 'return.start', from_state: 3, to_state: 6 },
      { to_state: 7 },
    ]);
    const audit = await fc.call('GET', `/operator/audit?orderId=${orderId}&action=order.return`, op);
    expect(audit.body.items).toMatchObject([{ reason: 'refused by the customer', note: null, detail: { rule: 'OR1', from: 3, to: 6 } }]);
  });

  it('refuses outside Courier loaded (252), an unknown order (250) and a missing reason (3), writing nothing', async () => {
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('CARE-3') })).status).toBe(200);
    const fresh = await fc.orderId('CARE-3');
    for (const path of ['code', 'return']) {
      const early = await fc.call('POST', `/operator/orders/${fresh}/${path}`, { ...op, body: { reason: 'too early' } });
      expect(early, path).toMatchObject({ status: 400, body: { resultCode: 252 } });
      const unknown = await fc.call('POST', `/operator/orders/00000000-0000-4000-8000-0000000000ff/${path}`, { ...op, body: { reason: 'x' } });
      expect(unknown.body.resultCode, path).toBe(250);
      const bare = await fc.call('POST', `/operator/orders/${fresh}/${path}`, { ...op, body: {} });
      expect(bare, path).toMatchObject({ status: 400, body: { resultCode: 3 } });
    }
    expect((await fc.call('GET', '/operator/audit', op)).body.total).toBe(0);
    expect((await transitions(fresh)).map((t) => t.rule)).toEqual(['C1']);
  });
});
