/** GET /operator/stream: server-sent events after a locker fact applied as the link applies it (and the order transition it made), and after an operator's action. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { type FactsCloud, KEYS, orderBody, startFactsCloud } from '../locker-events/facts-cloud.js';
import { eventually } from '../helpers/eventually.js';

interface Stream {
  events: { event: string; data: Record<string, unknown> }[];
  text(): string;
  close(): void;
}

async function openStream(url: string, headers: Record<string, string>): Promise<Stream> {
  const controller = new AbortController();
  const res = await fetch(`${url}/operator/stream`, { headers, signal: controller.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  let text = '';
  const events: Stream['events'] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        text += decoder.decode(value, { stream: true });
        let end;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const event = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
        }
      }
    } catch {
      // aborted
    }
  })();
  return { events, text: () => text, close: () => controller.abort() };
}

describe.each(testEngines())('operator live stream on %s', (engine) => {
  let fc: FactsCloud;
  beforeAll(async () => {
    fc = await startFactsCloud(engine);
  });
  afterAll(async () => fc.stop());

  it('tells of a locker fact, its alert and an operator action', async () => {
    const stream = await openStream(fc.cloud.url, { 'x-operator-api-key': KEYS.operator });
    try {
      await fc.fact(1, { type: 'door.alarm', cellId: 2, kind: 'left_open' });
      await eventually(() => stream.events.length >= 2, 'the locker and alert events');
      expect(stream.events[0]).toEqual({ event: 'locker', data: { lockerId: 1, cellId: 2, fact: 'door.alarm' } });
      expect(stream.events[1]).toMatchObject({ event: 'alert', data: { lockerId: 1, cellId: 2, kind: 'door.alarm', severity: 'warning', status: 'open', count: 1 } });

      expect((await fc.call('PUT', '/operator/postamats/1/cells/3/flags', { operatorKey: KEYS.operator, body: { blocked: true } })).status).toBe(200);
      await eventually(() => stream.events.some((e) => e.event === 'locker' && e.data.cellId === 3), 'the flag change');
    } finally {
      stream.close();
    }
  });

  it("tells of an order's transition made by a locker fact (an open order page follows the load)", async () => {
    const parcels = [{ barcode: 'LIVE-1-P1', dimension: { length: 300, width: 200, height: 80 } }];
    const created = await fc.call('PUT', '/api/v4/auth/delivery/smartorder/create', { key: KEYS.shopA, body: orderBody('LIVE-1', { parcels }) });
    expect(created.status).toBe(200);
    const orderId = await fc.orderId('LIVE-1');
    const stream = await openStream(fc.cloud.url, { 'x-operator-api-key': KEYS.operator });
    try {
      await fc.fact(1, { type: 'parcel.loaded', orderId, barcode: 'LIVE-1-P1', cellId: created.body.reserved[0].cellId, grantId: 'g' });
      await eventually(() => stream.events.some((e) => e.event === 'order'), 'the order event');
      expect(stream.events.find((e) => e.event === 'order')).toMatchObject({ event: 'order', data: { orderId, lockerId: 1, state: 3 } });
    } finally {
      stream.close();
    }
  });

  it('refuses a stream without a key or session', async () => {
    expect((await fc.call('GET', '/operator/stream')).status).toBe(401);
  });
});
