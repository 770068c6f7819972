/**
 * X-Request-Id through real HTTP: every answer carries one (the caller's when valid, else a new
 * one), the request's log line has it as reqId, and the notification an API call causes is
 * stored with it and delivered with it (header X-Request-Id) to a real HTTPS receiver.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { useNotifyCloud } from '../notify/helpers/notify-cloud.js';
import { KEYS, orderBody } from './helpers/fleet-fixtures.js';
import { type TestCloud, startTestCloud } from './helpers/test-cloud.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LOCKER = '/api/v4/auth/postamat/get-by-id?postamatId=1&cellsType=1';

describe('X-Request-Id of answers and log lines', () => {
  const lines: Record<string, unknown>[] = [];
  let tc: TestCloud;
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    tc = await startTestCloud('sqlite', { logger: pino({ level: 'info' }, sink) });
  });
  afterAll(async () => tc.stop());

  async function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    const res = await fetch(`${tc.cloud.url}${path}`, { headers: { 'X-Service-Api-Key': KEYS.shopA, ...headers } });
    await res.arrayBuffer();
    return res;
  }

  const lineOf = (reqId: string) => lines.find((l) => l.reqId === reqId && l.msg === 'request completed');

  it("keeps the caller's valid id, on the answer and as the log line's reqId", async () => {
    const res = await get(LOCKER, { 'X-Request-Id': 'shop-a/trace:0001' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('shop-a/trace:0001');
    expect(lineOf('shop-a/trace:0001')).toMatchObject({ statusCode: 200, caller: 'marketplace:shop-a' });
  });

  it('gives a new id when none is sent, or one too long or with spaces', async () => {
    for (const sent of [undefined, 'x'.repeat(129), 'two words', '']) {
      const res = await get(LOCKER, sent === undefined ? {} : { 'X-Request-Id': sent });
      const id = res.headers.get('x-request-id')!;
      expect(id, String(sent)).toMatch(UUID);
      expect(lineOf(id)).toBeDefined();
    }
    const twice = await get(LOCKER);
    expect(twice.headers.get('x-request-id')).not.toBe((await get(LOCKER)).headers.get('x-request-id'));
  });

  it('answers refusals with one too: unknown path, bad key, bad query encoding', async () => {
    expect((await get('/api/v4/no-such', { 'X-Request-Id': 'r-404' })).headers.get('x-request-id')).toBe('r-404');
    expect((await get(LOCKER, { 'X-Request-Id': 'r-401', 'X-Service-Api-Key': 'wrong' })).headers.get('x-request-id')).toBe('r-401');
    expect((await get(`${LOCKER}&x=%E0%A4%A`, { 'X-Request-Id': 'r-400' })).headers.get('x-request-id')).toBe('r-400');
  });
});

describe.each(testEngines())('X-Request-Id of notifications (%s)', (engine) => {
  const h = useNotifyCloud(engine, { now: '2030-03-05T09:00:00Z' });

  it('sends the notification a call causes with its request id, and one caused by the locker without', async () => {
    const created = await h.nc.call('PUT', '/api/v4/auth/delivery/smartorder/create', { key: KEYS.shopA, body: orderBody('RID-1') });
    const cellId = created.body.reserved[0].cellId as number;
    const orderId = await h.nc.orderId('RID-1');
    await h.nc.fact(1, { type: 'parcel.loaded', orderId, barcode: 'RID-1-P1', cellId, grantId: 'g' });
    await h.receiver.waitForCalls(3); // status 3, pick-up code, deadline

    const res = await fetch(`${h.nc.cloud.url}/api/v4/auth/delivery/order/extension`, {
      method: 'POST',
      headers: { 'X-Service-Api-Key': KEYS.shopA, 'Content-Type': 'application/json', 'X-Request-Id': 'extend-RID-1' },
      body: JSON.stringify({ extId: 'RID-1' }),
    });
    expect(res.status).toBe(200);
    await h.receiver.waitForCalls(4);
    await h.nc.dispatcher.idle();
    const calls = h.receiver.calls;
    expect(calls.slice(0, 3).map((c) => c.headers['x-request-id'])).toEqual([undefined, undefined, undefined]);
    expect(calls[3]).toMatchObject({ path: '/expiration-date-changes', headers: { 'x-request-id': 'extend-RID-1' } });

    const listed = await h.nc.call('GET', '/operator/notifications?status=delivered', { operatorKey: KEYS.operator });
    expect(listed.body.notifications.map((n: { requestId: string | null }) => n.requestId)).toEqual(['extend-RID-1', null, null, null]);
  });
});
