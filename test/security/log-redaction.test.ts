/**
 * The cloud's logs through real HTTP: one line per request with what an operator needs (reqId,
 * method, route, statusCode, responseTime, caller), ids with digit runs readable, and no phone,
 * e-mail, access code or API key anywhere in the output, whatever the requests carried.
 */
import { Writable } from 'node:stream';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FleetInput } from '../../cloud/src/fleet/fleet-schema.js';
import { loggerOptions } from '../../shared/src/redact.js';
import { testEngines } from '../helpers/cloud-db.js';
import { KEYS, orderBody, routeBody, testFleet } from '../cloud/helpers/fleet-fixtures.js';
import { type TestCloud, startTestCloud } from '../cloud/helpers/test-cloud.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';
const DETAIL = '/api/v4/auth/delivery/order/detail';
const ROUTE = '/api/v1/auth/couriers/courier-with-route';

/** Ids with digit runs: a marketplace and a partner named like the ids operators search for. */
const SHOP = 'shop-20251234';
const PARTNER = 'cloud-ce1234567';

function fleet(): FleetInput {
  return JSON.parse(JSON.stringify(testFleet()).replaceAll('"shop-a"', `"${SHOP}"`).replaceAll('"courier-co"', `"${PARTNER}"`)) as FleetInput;
}

interface LogLine {
  msg?: string;
  [key: string]: unknown;
}

/** A pino destination that keeps every line and lets a test wait for a line to arrive. */
class CapturedLog extends Writable {
  readonly lines: string[] = [];
  #waiters: { match: (l: LogLine) => boolean; resolve: (l: LogLine) => void }[] = [];

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    const text = chunk.toString();
    this.lines.push(text);
    const line = JSON.parse(text) as LogLine;
    this.#waiters = this.#waiters.filter((w) => (w.match(line) ? (w.resolve(line), false) : true));
    cb();
  }

  parsed(): LogLine[] {
    return this.lines.map((l) => JSON.parse(l) as LogLine);
  }

  /** The first line (already written or still to come) that matches. */
  next(match: (l: LogLine) => boolean): Promise<LogLine> {
    const seen = this.parsed().find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  text(): string {
    return this.lines.join('');
  }
}

/** A digit string as a whole token (not inside a longer number such as the time field). */
const token = (digits: string): RegExp => new RegExp(`(?<!\\d)${digits.replace('+', '\\+')}(?!\\d)`);

describe.each(testEngines())('cloud request logs on %s', (engine) => {
  let tc: TestCloud;
  let log: CapturedLog;
  beforeAll(async () => {
    log = new CapturedLog();
    tc = await startTestCloud(engine, { fleet: fleet(), logger: pino(loggerOptions('cloud', 'debug'), log) });
  });
  afterAll(async () => tc.stop());
  beforeEach(async () => {
    await tc.reset();
    log.lines.length = 0;
  });

  /** The completed-request line of the request that answered on `route` with `status`. */
  const completed = (route: string, status: number) => log.next((l) => l.msg === 'request completed' && l.route === route && l.statusCode === status);

  it('logs one line per request with method, route, status, response time, reqId and caller; never personal data or keys', async () => {
    const order = await tc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('order-20251234') });
    expect(order.status).toBe(200);
    const route = await tc.call('PUT', ROUTE, { partnerKey: KEYS.partner, body: routeBody() });
    expect(route.status).toBe(200);
    const code = String(route.body.postamatAccessCode);
    expect(code).toMatch(/^\d{6,8}$/);
    const detail = await tc.call('POST', DETAIL, { key: KEYS.shopA, body: { barcode: 'order-20251234-P1', postamatAccessCode: code } });
    expect(detail.status).toBe(200);
    const wrongKey = 'wrong-key-55501234';
    expect((await tc.call('PUT', SMART, { key: wrongKey, body: orderBody('order-2') })).status).toBe(401);
    const query = `?phone=%2B79161234567&code=${code}`;
    expect((await tc.call('GET', `/api/v4/no/such/cloud-ce1234567/550e8400-e29b-41d4-a716-446655440000${query}`, { key: KEYS.shopA })).status).toBe(404);

    const created = await completed(SMART, 200);
    expect(created).toMatchObject({ level: 30, name: 'cloud', method: 'PUT', url: SMART, caller: `marketplace:${SHOP}` });
    expect(created.reqId).toEqual(expect.any(String));
    expect(created.responseTime).toEqual(expect.any(Number));
    expect(await completed(ROUTE, 200)).toMatchObject({ method: 'PUT', caller: `partner:${PARTNER}` });
    expect(await completed(DETAIL, 200)).toMatchObject({ method: 'POST', caller: `marketplace:${SHOP}` });
    // A wrong key: the status, no caller, and never the key.
    const refused = await completed(SMART, 401);
    expect(refused.caller).toBeUndefined();
    // No route: the path with its ids as sent, without the query string.
    const missing = await log.next((l) => l.msg === 'request completed' && l.statusCode === 404);
    expect(missing).toMatchObject({ method: 'GET', url: '/api/v4/no/such/cloud-ce1234567/550e8400-e29b-41d4-a716-446655440000' });
    expect(missing.route).toBeUndefined();
    // Requests are announced at debug level (for requests that never complete), by the same reqId.
    const received = log.parsed().filter((l) => l.msg === 'request received');
    expect(received.map((l) => l.reqId)).toContain(created.reqId);
    expect(received.every((l) => l.level === 20)).toBe(true);

    const out = log.text();
    for (const secret of ['client@example.ru', 'ivan@example.ru', 'example.ru', KEYS.shopA, KEYS.partner, wrongKey, 'А123ВС77']) {
      expect(out.toLowerCase()).not.toContain(secret.toLowerCase());
    }
    for (const digits of ['+79161234567', '79161234567', '+79990000001', '79990000001', '7701234567', code]) {
      expect(out).not.toMatch(token(digits));
    }
    expect(out).not.toMatch(/headers|authorization|api-key/i);
  });

  it('keeps megabyte inputs out of the logs without stalling the process', async () => {
    const hostile = [
      { parcels: [{ barcode: '1'.repeat(400_000), dimension: { length: 300, width: 200, height: 80 } }] },
      { externalId: `+7${'1'.repeat(400_000)}` },
      { number: '8 ('.repeat(130_000) },
      { notification: { emails: ['a@'.repeat(200_000)], phones: ['+7'] } },
    ];
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    try {
      for (const fields of hostile) {
        const answer = await tc.call('PUT', SMART, { key: KEYS.shopA, body: { ...orderBody('order-3'), ...fields } });
        expect(answer.status).toBeLessThan(500);
        expect((await tc.call('GET', '/health')).status).toBe(200);
      }
    } finally {
      delay.disable();
    }
    // The old scrubber stalled the process for a minute on one such string; parsing and
    // validating a 400 KB body takes milliseconds, so a second is a bound no busy machine reaches.
    expect(delay.max / 1e6).toBeLessThan(1_000);
    expect(log.lines.length).toBeGreaterThan(0);
    for (const line of log.lines) expect(line.length).toBeLessThan(16 * 1024);
  });
});
