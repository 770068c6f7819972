/**
 * The audit made whole, through real HTTP: the operator's note is kept beside the action's reason
 * (a cell open's purpose too, and an old request without a note still answers), the locker's cell
 * shows who set each current flag, why and when, and the log filters by operator, locker, order,
 * action and time.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadIntoLocker } from '../cloud/helpers/locker-facts.js';
import { testEngines } from '../helpers/cloud-db.js';
import { type FactsCloud, KEYS, orderBody, startFactsCloud } from '../locker-events/facts-cloud.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';

describe.each(testEngines())('the operator audit on %s', (engine) => {
  let fc: FactsCloud;
  beforeAll(async () => {
    fc = await startFactsCloud(engine);
  });
  afterAll(async () => fc.stop());
  beforeEach(async () => {
    await fc.reset();
    await fc.db.db.deleteFrom('operator_audit').execute();
    await fc.db.db.deleteFrom('cell_flag_marks').execute();
    // Locker 1's agent announced cell.open in its hello.
    await fc.db.db.updateTable('lockers').set({ command_types: JSON.stringify(['cell.flags', 'cell.open']) }).where('id', '=', 1).execute();
  });

  const op = { operatorKey: KEYS.operator };
  const get = async (path: string) => {
    const answer = await fc.call('GET', path, op);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  type Entry = { action: string; reason: string | null; note: string | null; target: string; lockerId: number | null; orderId: string | null };

  it("keeps a cell open's note beside its purpose; a request without a note is still accepted", async () => {
    const withNote = await fc.call('POST', '/operator/lockers/1/cells/2/open', { ...op, body: { reason: 'customer_support', note: 'code not accepted, customer on the phone' } });
    expect(withNote.status, JSON.stringify(withNote.body)).toBe(202);
    const without = await fc.call('POST', '/operator/lockers/1/cells/3/open', { ...op, body: { reason: 'maintenance' } });
    expect(without.status).toBe(202);
    const audit = await get('/operator/audit?action=cell.open');
    expect(audit.items).toMatchObject([
      { target: 'locker:1/cell:3', reason: 'maintenance', note: null, lockerId: 1, orderId: null },
      { target: 'locker:1/cell:2', reason: 'customer_support', note: 'code not accepted, customer on the phone', lockerId: 1, operator: 'ops' },
    ]);
    // A note is bounded like a reason; blank is refused.
    const long = await fc.call('POST', '/operator/lockers/1/cells/2/open', { ...op, body: { reason: 'other', note: 'x'.repeat(501) } });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ resultCode: expect.any(Number), message: expect.any(String) });
    expect((await fc.call('POST', '/operator/lockers/1/cells/2/open', { ...op, body: { reason: 'other', note: '   ' } })).status).toBe(400);
  });

  it('shows who set each current flag, why and when; a cleared flag loses its mark', async () => {
    const flags = (body: unknown) => fc.call('PUT', '/operator/postamats/1/cells/2/flags', { ...op, body });
    expect((await flags({ blocked: true, reason: 'glass cracked', note: 'tape on it until Monday' })).status).toBe(200);
    await fc.fact(1, { type: 'cell.flags', cellId: 2, flags: ['faulty'], reason: 'door_jammed' });
    const cell = async () => ((await get('/operator/lockers/1')).grid as { cellId: number; flagMarks: unknown[] }[]).find((c) => c.cellId === 2)!;
    const at = new Date(fc.clock.now()).toISOString();
    expect((await cell()).flagMarks).toEqual([
      { flag: 'blocked', setBy: 'ops', reason: 'glass cracked', note: 'tape on it until Monday', setAt: at },
      { flag: 'faulty', setBy: 'locker', reason: 'door_jammed', note: null, setAt: at },
    ]);
    expect((await flags({ blocked: false, reason: 'glass replaced' })).status).toBe(200);
    expect((await cell()).flagMarks).toEqual([{ flag: 'faulty', setBy: 'locker', reason: 'door_jammed', note: null, setAt: at }]);
    // Locker 1's cell 5 is dirty from the fleet file: no mark, the flag is still listed.
    expect(((await get('/operator/lockers/1')).grid as { cellId: number; flags: string[]; flagMarks: unknown[] }[]).find((c) => c.cellId === 5)).toMatchObject({ flags: ['dirty'], flagMarks: [] });
  });

  it('filters by operator, locker, order, action and time, each narrowing the others', async () => {
    expect((await fc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('AU-1') })).status).toBe(200);
    await loadIntoLocker(fc, 'shop-a', 'AU-1');
    const orderId = await fc.orderId('AU-1');
    const early = fc.clock.now();
    expect((await fc.call('PUT', '/operator/postamats/1/cells/2/flags', { ...op, body: { dirty: true, note: 'spilt coffee' } })).status).toBe(200);
    expect((await fc.call('PUT', '/operator/postamats/2/cells/1/flags', { ...op, body: { blocked: true, reason: 'vandalism' } })).status).toBe(200);
    fc.clock.advance(60_000);
    const later = fc.clock.now();
    const extended = await fc.call('POST', `/operator/orders/${orderId}/extend`, { ...op, body: { days: 3, reason: 'customer abroad', note: 'asked by phone' } });
    expect(extended.status, JSON.stringify(extended.body)).toBe(200);
    // Another operator, signed with a key of its own.
    const other = 'other-operator-key';
    await fc.db.db.insertInto('operators').values({ name: 'night', role: 'operator' }).onConflict((oc) => oc.doNothing()).execute();
    await fc.db.db.insertInto('api_keys').values({ key_hash: createHash('sha256').update(other).digest('hex'), owner_kind: 'operator', owner_id: 'night' }).onConflict((oc) => oc.doNothing()).execute();
    expect((await fc.call('POST', '/operator/lockers/1/cells/3/open', { operatorKey: other, body: { reason: 'inventory', note: 'night round' } })).status).toBe(202);

    const targets = async (query: string) => ((await get(`/operator/audit?${query}`)).items as Entry[]).map((e) => e.target);
    expect(await targets('lockerId=1')).toEqual(['locker:1/cell:3', `order:${orderId}`, 'locker:1/cell:2']);
    expect(await targets(`orderId=${orderId}`)).toEqual([`order:${orderId}`]);
    expect(await targets('operator=night')).toEqual(['locker:1/cell:3']);
    expect(await targets('operator=ops&lockerId=1')).toEqual([`order:${orderId}`, 'locker:1/cell:2']);
    expect(await targets('action=cell.flags')).toEqual(['locker:2/cell:1', 'locker:1/cell:2']);
    const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    expect(await targets(`from=${iso(later)}&action=order.extend`)).toEqual([`order:${orderId}`]);
    expect(await targets(`from=${iso(early)}&to=${iso(later)}`)).toEqual(['locker:2/cell:1', 'locker:1/cell:2']);
    const extension = (await get(`/operator/audit?orderId=${orderId}`)).items[0] as Entry;
    expect(extension).toMatchObject({ reason: 'customer abroad', note: 'asked by phone', lockerId: 1, orderId });
    expect(((await get('/operator/audit?action=cell.flags&lockerId=1')).items as Entry[])[0]).toMatchObject({ reason: null, note: 'spilt coffee' });

    for (const bad of ['action=cell.explode', 'from=yesterday', 'lockerId=-1', `to=${'9'.repeat(60)}`]) {
      const answer = await fc.call('GET', `/operator/audit?${bad}`, op);
      expect(answer.status, bad).toBe(400);
      expect(answer.body, bad).toMatchObject({ resultCode: expect.any(Number), message: expect.any(String) });
    }
  });
});
