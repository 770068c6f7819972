/**
 * Idempotency-Key through real HTTP on each engine: a retry replays the first answer (status, body,
 * Idempotent-Replayed) and has no second effect (one route sheet, one order, one notification);
 * another body is 422; keys are per caller; refusals are replayed too; keys expire and are swept.
 * On PostgreSQL also: a request in flight (held behind a locker lock) makes a retry 409, a claim
 * past its lease is taken over and the first request then rolls back, and two cloud instances on
 * one database share the keys.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { loadConfig } from '../../cloud/src/config.js';
import { openDatabase, type CloudDatabase } from '../../cloud/src/db/database.js';
import { lockerTransaction } from '../../cloud/src/db/transaction.js';
import { testEngines } from '../helpers/cloud-db.js';
import { eventually } from '../helpers/eventually.js';
import { KEYS, orderBody, routeBody } from './helpers/fleet-fixtures.js';
import { loadIntoLocker } from './helpers/locker-facts.js';
import { type TestCloud, startTestCloud } from './helpers/test-cloud.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';
const CANCEL = '/api/v4/auth/delivery/order/place/cancel';
const EXTEND = '/api/v4/auth/delivery/order/extension';
const ROUTE = '/api/v1/auth/couriers/courier-with-route';

interface RawAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers loosely
  body: any;
}

async function send(base: string, method: string, path: string, headers: Record<string, string>, body: unknown): Promise<RawAnswer> {
  const res = await fetch(`${base}${path}`, { method, headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const shopA = (key?: string) => ({ 'X-Service-Api-Key': KEYS.shopA, ...(key !== undefined ? { 'Idempotency-Key': key } : {}) });
const shopB = (key?: string) => ({ 'X-Service-Api-Key': KEYS.shopB, ...(key !== undefined ? { 'Idempotency-Key': key } : {}) });
const partner = (key?: string) => ({ 'Partner-Api-Key': KEYS.partner, ...(key !== undefined ? { 'Idempotency-Key': key } : {}) });

describe.each(testEngines())('Idempotency-Key on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine);
  });
  afterAll(async () => tc.stop());
  beforeEach(async () => {
    await tc.reset();
    await tc.db.db.deleteFrom('idempotency_keys').execute();
  });

  const base = () => tc.cloud.url;
  const routeSheets = async () => (await tc.db.db.selectFrom('route_sheets').select('id').execute()).length;

  it('replays the first answer of a route sheet and creates it once; without a key every call creates one', async () => {
    const first = await send(base(), 'PUT', ROUTE, partner('route-key-1'), routeBody());
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await send(base(), 'PUT', ROUTE, partner('route-key-1'), routeBody());
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await routeSheets()).toBe(1);

    // The same body without a key is a new route sheet with a new code.
    const unkeyed = await send(base(), 'PUT', ROUTE, partner(), routeBody());
    expect(unkeyed.status).toBe(200);
    expect(unkeyed.body.postamatAccessCode).not.toBe(first.body.postamatAccessCode);
    expect(await routeSheets()).toBe(2);
  });

  it('refuses the same key with another body (422, code 3), whatever the key order or spacing of the first', async () => {
    expect((await send(base(), 'PUT', SMART, shopA('order-key'), orderBody('IK-1'))).status).toBe(200);
    const reordered = Object.fromEntries(Object.entries(orderBody('IK-1')).reverse());
    const replay = await send(base(), 'PUT', SMART, shopA('order-key'), reordered);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const other = await send(base(), 'PUT', SMART, shopA('order-key'), orderBody('IK-2'));
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ message: expect.stringContaining('Idempotency-Key'), resultCode: 3 });
    // The same key on another operation is another request too.
    expect((await send(base(), 'PUT', CANCEL, shopA('order-key'), { extId: 'IK-1', barcode: 'IK-1-P1' })).status).toBe(422);
    const orders = await tc.db.db.selectFrom('orders').select('external_id').execute();
    expect(orders.map((o) => o.external_id)).toEqual(['IK-1']);
  });

  it('keeps keys per caller', async () => {
    expect((await send(base(), 'PUT', SMART, shopA('shared-key'), orderBody('PC-A'))).status).toBe(200);
    const b = await send(base(), 'PUT', SMART, shopB('shared-key'), orderBody('PC-B'));
    expect(b.status).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.reserved[0].externalId).toBe('PC-B');
  });

  it('replays a refusal as it was first given, even after the state changed', async () => {
    const refused = await send(base(), 'PUT', CANCEL, shopA('cancel-key'), { extId: 'LATER', barcode: 'LATER-P1' });
    expect(refused.status).toBe(400);
    expect(refused.body.resultCode).toBe(205);
    expect((await send(base(), 'PUT', SMART, shopA(), orderBody('LATER'))).status).toBe(200);
    const replay = await send(base(), 'PUT', CANCEL, shopA('cancel-key'), { extId: 'LATER', barcode: 'LATER-P1' });
    expect(replay).toMatchObject({ status: 400, body: refused.body });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // A new key does the cancel.
    expect((await send(base(), 'PUT', CANCEL, shopA('cancel-key-2'), { extId: 'LATER', barcode: 'LATER-P1' })).body).toEqual({ externalId: 'LATER', state: 5 });
  });

  it('extends storage once: one expiration-date-changes notification for two calls', async () => {
    expect((await send(base(), 'PUT', SMART, shopA(), orderBody('EXT-1'))).status).toBe(200);
    await loadIntoLocker(tc, 'shop-a', 'EXT-1');
    const first = await send(base(), 'POST', EXTEND, shopA('extend-key'), { extId: 'EXT-1' });
    const second = await send(base(), 'POST', EXTEND, shopA('extend-key'), { extId: 'EXT-1' });
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const deadlines = await tc.db.db.selectFrom('notifications').select('request_id').where('kind', '=', 'expiration-date-changes').orderBy('id').execute();
    // One when loaded (no API call), one for the extension (its request id).
    expect(deadlines).toHaveLength(2);
    expect(deadlines[0]!.request_id).toBeNull();
    expect(deadlines[1]!.request_id).toBe(first.headers.get('x-request-id'));
  });

  it('accepts the key as a Structured Field String and refuses malformed keys (400, code 3)', async () => {
    expect((await send(base(), 'PUT', ROUTE, partner('"sf-key"'), routeBody())).status).toBe(200);
    expect((await send(base(), 'PUT', ROUTE, partner('sf-key'), routeBody())).headers.get('idempotent-replayed')).toBe('true');
    for (const bad of ['two words', 'x'.repeat(256), '"unterminated', '""']) {
      const res = await send(base(), 'PUT', ROUTE, partner(bad), routeBody());
      expect(res.status, bad).toBe(400);
      expect(res.body.resultCode).toBe(3);
    }
    expect(await routeSheets()).toBe(1);
  });

  it('forgets keys after their lifetime: the sweep deletes them and the key is free again', async () => {
    expect((await send(base(), 'PUT', ROUTE, partner('old-key'), routeBody())).status).toBe(200);
    tc.clock.advance(24 * 3600_000 + 1);
    await tc.cloud.idempotencyKeys.sweep();
    expect(await tc.db.db.selectFrom('idempotency_keys').select('key').execute()).toEqual([]);
    const reused = await send(base(), 'PUT', ROUTE, partner('old-key'), routeBody({}, { date: '2030-03-05' }));
    expect(reused.status).toBe(200);
    expect(reused.headers.get('idempotent-replayed')).toBeNull();
    expect(await routeSheets()).toBe(2);
  });

  describe.runIf(engine === 'postgres')('requests in flight and several cloud processes', () => {
    let second: RunningCloud;
    let secondDb: CloudDatabase;
    beforeAll(async () => {
      secondDb = await openDatabase(tc.db.location);
      second = await startCloud(loadConfig({}, { port: 0, host: '127.0.0.1', logLevel: 'silent' }), { database: secondDb, clock: tc.clock });
    });
    afterAll(async () => {
      await second?.stop();
      await secondDb?.close();
    });

    /** Holds locker 1's row (as a concurrent order would) until the returned function is called. */
    async function holdLocker(): Promise<() => Promise<void>> {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let held!: () => void;
      const holding = new Promise<void>((resolve) => (held = resolve));
      const tx = lockerTransaction(tc.db, [1], async () => {
        held();
        await released;
      });
      await holding;
      return async () => {
        release();
        await tx;
      };
    }

    const claimOf = () => tc.db.db.selectFrom('idempotency_keys').select(['status', 'created_at']).where('key', '=', 'slow-key').executeTakeFirst();
    /** Until the key is claimed (no answer yet) at or after `since`. */
    const claimedSince = (since: number) =>
      eventually(async () => {
        const claim = await claimOf();
        return claim !== undefined && claim.status === null && Number(claim.created_at) >= since;
      }, 'the request to claim the key');

    it('answers a retry of a request still in flight with 409 (code 4), then replays its answer', async () => {
      const release = await holdLocker();
      const first = send(base(), 'PUT', SMART, shopA('slow-key'), orderBody('SLOW-1'));
      await claimedSince(tc.clock.now());
      const retry = await send(second.url, 'PUT', SMART, shopA('slow-key'), orderBody('SLOW-1'));
      expect(retry.status).toBe(409);
      expect(retry.body).toEqual({ message: expect.any(String), resultCode: 4 });
      expect(retry.headers.get('retry-after')).toBe('1');
      await release();
      const answered = await first;
      expect(answered.status).toBe(200);
      const replay = await send(second.url, 'PUT', SMART, shopA('slow-key'), orderBody('SLOW-1'));
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(answered.body);
    });

    it('lets a retry take over a claim past its lease; the first request then rolls back (one route sheet)', async () => {
      const release = await holdLocker();
      const first = send(base(), 'PUT', ROUTE, partner('slow-key'), routeBody({}, { postamatIds: [1] }));
      await claimedSince(tc.clock.now());
      tc.clock.advance(61_000);
      const retry = send(second.url, 'PUT', ROUTE, partner('slow-key'), routeBody({}, { postamatIds: [1] }));
      await claimedSince(tc.clock.now());
      await release();
      const [a, b] = await Promise.all([first, retry]);
      expect(b.status).toBe(200);
      expect(a.status).toBe(409);
      expect(await routeSheets()).toBe(1);
      const replay = await send(base(), 'PUT', ROUTE, partner('slow-key'), routeBody({}, { postamatIds: [1] }));
      expect(replay.body).toEqual(b.body);
    });

    it('gives concurrent retries on two instances one effect', async () => {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => send(i % 2 === 0 ? base() : second.url, 'PUT', ROUTE, partner('race-key'), routeBody())),
      );
      expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
      const codes = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.postamatAccessCode));
      expect(codes.size).toBe(1);
      expect(await routeSheets()).toBe(1);
    });
  });
});
