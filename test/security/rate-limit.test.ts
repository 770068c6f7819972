/**
 * Rate limits and the lockout against guessing, through real HTTP on each engine: a key's request
 * limit from the fleet file (429 envelope and headers, per owner, a new window lets it through),
 * partners and client addresses, the guess lockout of order/detail (locks, alert, a right code
 * refused during the lock and accepted after), and two cloud instances on one database sharing
 * both counts. Windows move with the injected clock; nothing sleeps.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { loadConfig } from '../../cloud/src/config.js';
import { openDatabase, type CloudDatabase } from '../../cloud/src/db/database.js';
import { type FleetInput, fleetSchema } from '../../cloud/src/fleet/fleet-schema.js';
import { DEFAULT_REQUEST_LIMIT } from '../../cloud/src/guard/limits.js';
import { KEYS, orderBody, routeBody, testFleet } from '../cloud/helpers/fleet-fixtures.js';
import { type TestCloud, startTestCloud } from '../cloud/helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';
const DETAIL = '/api/v4/auth/delivery/order/detail';
const ROUTE = '/api/v1/auth/couriers/courier-with-route';
const LOCKER = '/api/v4/auth/postamat/get-by-id?postamatId=1&cellsType=1';

/** shop-a: 5 requests a minute. shop-b: default requests, small guess limits. courier-none: 3 requests a minute. */
function limitedFleet(): FleetInput {
  const fleet = testFleet();
  const shopA = fleet.marketplaces.find((m) => m.id === 'shop-a')!;
  shopA.rateLimits = { requests: { max: 5, windowSeconds: 60 } };
  const shopB = fleet.marketplaces.find((m) => m.id === 'shop-b')!;
  shopB.rateLimits = {
    codeGuessing: { perParcel: { maxFailures: 3, windowSeconds: 600, lockSeconds: 300 }, perKey: { maxFailures: 5, windowSeconds: 3600, lockSeconds: 1200 } },
  };
  fleet.partners!.find((p) => p.id === 'courier-none')!.rateLimits = { requests: { max: 3, windowSeconds: 60 } };
  return fleet;
}

interface RawAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers loosely
  body: any;
}

async function raw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<RawAnswer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

function expectRefused(answer: RawAnswer, retryAfter: number): void {
  expect(answer.status).toBe(429);
  expect(answer.body).toEqual({ message: expect.any(String), resultCode: 4 });
  expect(answer.headers.get('retry-after')).toBe(String(retryAfter));
}

describe('rateLimits in the fleet file', () => {
  it('is optional, and refuses values out of range or unknown fields naming them', () => {
    expect(fleetSchema.safeParse(testFleet()).success).toBe(true);
    expect(fleetSchema.safeParse(limitedFleet()).success).toBe(true);
    const bad = (rateLimits: unknown): string[] => {
      const fleet = testFleet() as { marketplaces: Record<string, unknown>[] };
      fleet.marketplaces[0]!.rateLimits = rateLimits;
      const parsed = fleetSchema.safeParse(fleet);
      return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join('.'));
    };
    expect(bad({ requests: { max: 0, windowSeconds: 10 } })).toEqual(['marketplaces.0.rateLimits.requests.max']);
    expect(bad({ codeGuessing: { perParcel: { maxFailures: 3, windowSeconds: 600, lockSeconds: 0 } } })).toEqual(['marketplaces.0.rateLimits.codeGuessing.perParcel.lockSeconds']);
    expect(bad({ request: { max: 5, windowSeconds: 10 } })).toEqual(['marketplaces.0.rateLimits']);
  });
});

describe.each(testEngines())('rate limits and guess lockout on %s', (engine) => {
  let tc: TestCloud;
  let base: string;
  const shopA = { 'X-Service-Api-Key': KEYS.shopA };
  const shopB = { 'X-Service-Api-Key': KEYS.shopB };

  beforeAll(async () => {
    tc = await startTestCloud(engine, { fleet: limitedFleet() });
    base = tc.cloud.url;
  });
  afterAll(async () => tc?.stop());
  beforeEach(async () => {
    await tc.reset();
    tc.writeFleet(limitedFleet());
    await tc.cloud.reloadFleet();
    await tc.db.db.deleteFrom('rate_counters').execute();
    await tc.db.db.deleteFrom('guard_locks').execute();
    await tc.db.db.deleteFrom('locker_alerts').execute();
  });

  describe('request limit', () => {
    it("refuses a key's request beyond its fleet limit with 429, the envelope and the draft headers, until the window ends", async () => {
      for (let i = 1; i <= 5; i++) {
        const ok = await raw(base, 'GET', LOCKER, shopA);
        expect(ok.status).toBe(200);
        expect(ok.headers.get('ratelimit-limit')).toBe('5');
        expect(ok.headers.get('ratelimit-remaining')).toBe(String(5 - i));
        expect(ok.headers.get('ratelimit-reset')).toBe('60'); // the clock stands at the window's start
      }
      const refused = await raw(base, 'GET', LOCKER, shopA);
      expectRefused(refused, 60);
      expect(refused.headers.get('ratelimit-limit')).toBe('5');
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('ratelimit-reset')).toBe('60');
      // Every operation of the key shares the budget; the refusal changes nothing.
      expectRefused(await raw(base, 'PUT', SMART, shopA, orderBody('RL-1')), 60);
      // The same refusal wholly in Russian by default, wholly in English when asked.
      expect(refused.body.message).toBe('Слишком много запросов: не более 5 за 60 с, повторите через 60 с');
      expect((await raw(base, 'GET', LOCKER, { ...shopA, 'Accept-Language': 'en' })).body.message).toBe('Too many requests: at most 5 per 60 s, retry in 60 s');
      expect(await tc.db.db.selectFrom('orders').select('id').execute()).toEqual([]);

      // Another marketplace has its own budget, with the default limit.
      const other = await raw(base, 'GET', LOCKER, shopB);
      expect(other.status).toBe(200);
      expect(other.headers.get('ratelimit-limit')).toBe(String(DEFAULT_REQUEST_LIMIT.max));

      tc.clock.advance(45_000);
      expectRefused(await raw(base, 'GET', LOCKER, shopA), 15);
      tc.clock.advance(15_000);
      const again = await raw(base, 'GET', LOCKER, shopA);
      expect(again.status).toBe(200);
      expect(again.headers.get('ratelimit-remaining')).toBe('4');
    });

    it("honours a partner's limit from the fleet file, whatever the requests' answers", async () => {
      const partner = { 'Partner-Api-Key': KEYS.partnerNone };
      for (let i = 0; i < 3; i++) expect((await raw(base, 'PUT', ROUTE, partner, routeBody())).status).toBe(400);
      expectRefused(await raw(base, 'PUT', ROUTE, partner, routeBody()), 60);
      // Its neighbour partner is not affected.
      expect((await raw(base, 'PUT', ROUTE, { 'Partner-Api-Key': KEYS.partner }, routeBody())).status).toBe(200);
    });

    it('counts requests without a known key per client address, and never /health', async () => {
      const anonymous = { max: 600, windowSeconds: 60 };
      for (let i = 0; i < anonymous.max; i += 50) {
        const batch = await Promise.all(Array.from({ length: 50 }, () => raw(base, 'GET', LOCKER, { 'X-Service-Api-Key': 'wrong-key' })));
        expect(batch.map((a) => a.status)).toEqual(Array.from({ length: 50 }, () => 401));
      }
      expectRefused(await raw(base, 'GET', LOCKER, { 'X-Service-Api-Key': 'another-wrong-key' }), 60);
      expectRefused(await raw(base, 'GET', LOCKER), 60);
      expect((await raw(base, 'GET', '/health')).status).toBe(200);
      // A known key is counted on its own budget.
      expect((await raw(base, 'GET', LOCKER, shopB)).status).toBe(200);
    });
  });

  describe('guess lockout of order/detail', () => {
    let code: string;
    beforeEach(async () => {
      for (const id of ['G-1', 'G-2', 'G-3']) expect((await raw(base, 'PUT', SMART, shopB, orderBody(id))).status).toBe(200);
      code = (await raw(base, 'PUT', ROUTE, { 'Partner-Api-Key': KEYS.partner }, routeBody({}, { postamatIds: [1] }))).body.postamatAccessCode;
    });
    const detail = (body: Record<string, unknown>) => raw(base, 'POST', DETAIL, shopB, body);

    it('locks a barcode after its wrong codes, refuses the right code during the lock, raises one alert, accepts after', async () => {
      const wrong = code === '00000000' ? '11111111' : '00000000';
      expect((await detail({ barcode: 'G-1-P1', postamatAccessCode: code })).status).toBe(200);
      for (let i = 0; i < 2; i++) expect((await detail({ barcode: 'G-1-P1', postamatAccessCode: wrong })).body.resultCode).toBe(210);
      expect((await detail({ barcode: 'G-1-P1', courierExternalId: 'stranger' })).body.resultCode).toBe(203); // the third failure: locked
      expectRefused(await detail({ barcode: 'G-1-P1', postamatAccessCode: code }), 300);
      expectRefused(await detail({ barcode: 'G-1-P1', courierExternalId: 'courier-1' }), 300);
      // Another barcode of the marketplace is not locked.
      expect((await detail({ barcode: 'G-2-P1', postamatAccessCode: code })).status).toBe(200);

      const alerts = (await raw(base, 'GET', '/operator/alerts', { 'X-Operator-Api-Key': KEYS.operator })).body.alerts;
      expect(alerts).toHaveLength(1);
      expect(alerts[0]).toMatchObject({
        postamatId: 1,
        dseq: null,
        kind: 'api.code_guessing',
        severity: 'warning',
        orderId: expect.any(String),
        detail: { operation: 'order/detail', marketplaceId: 'shop-b', scope: 'parcel', failures: 3, windowSeconds: 600, lockedUntil: '2030-03-04T09:05:00.000Z' },
      });
      const text = JSON.stringify(alerts[0]);
      for (const secret of [code, wrong, 'stranger', 'G-1-P1']) expect(text).not.toContain(secret);

      tc.clock.advance(299_000);
      expectRefused(await detail({ barcode: 'G-1-P1', postamatAccessCode: code }), 1);
      tc.clock.advance(1_000);
      expect((await detail({ barcode: 'G-1-P1', postamatAccessCode: code })).status).toBe(200);
    });

    it("locks the marketplace's order/detail after wrong codes spread over barcodes", async () => {
      const wrong = code === '00000000' ? '11111111' : '00000000';
      for (const barcode of ['G-1-P1', 'G-1-P1', 'G-2-P1', 'G-2-P1', 'G-3-P1']) {
        expect((await detail({ barcode, postamatAccessCode: wrong })).body.resultCode).toBe(210);
      }
      expectRefused(await detail({ barcode: 'G-3-P1', postamatAccessCode: code }), 1200);
      // Only order/detail is locked, not the key's other operations.
      expect((await raw(base, 'GET', LOCKER, shopB)).status).toBe(200);
      const alerts = (await raw(base, 'GET', '/operator/alerts', { 'X-Operator-Api-Key': KEYS.operator })).body.alerts;
      expect(alerts.map((a: { detail: { scope: string } }) => a.detail.scope)).toEqual(['key']);

      tc.clock.advance(1_200_000);
      expect((await detail({ barcode: 'G-3-P1', postamatAccessCode: code })).status).toBe(200);
    });

    it('keeps the defaults when the fleet file sets no limits', async () => {
      // shop-a has no codeGuessing: 10 wrong codes per barcode lock it (its request limit aside).
      tc.writeFleet({ ...limitedFleet(), marketplaces: testFleet().marketplaces });
      await tc.cloud.reloadFleet();
      tc.clock.advance(10_000); // past the remembered limits of the key
      expect((await raw(base, 'PUT', SMART, shopA, orderBody('D-1'))).status).toBe(200);
      for (let i = 0; i < 10; i++) expect((await raw(base, 'POST', DETAIL, shopA, { barcode: 'D-1-P1', courierExternalId: 'stranger' })).body.resultCode).toBe(203);
      expectRefused(await raw(base, 'POST', DETAIL, shopA, { barcode: 'D-1-P1', courierExternalId: 'courier-1' }), 900);
    });
  });

  describe('two cloud instances on one database', () => {
    let second: RunningCloud;
    let secondDb: CloudDatabase;
    beforeAll(async () => {
      // A second connection (pool) to the same database, as another process would open it.
      secondDb = await openDatabase(tc.db.location);
      const config = loadConfig({}, { port: 0, host: '127.0.0.1', fleetFile: tc.fleetPath, logLevel: 'silent' });
      second = await startCloud(config, { database: secondDb, clock: tc.clock });
    });
    afterAll(async () => {
      await second?.stop();
      await secondDb?.close();
    });

    it('share the request count of a key', async () => {
      for (let i = 0; i < 5; i++) expect((await raw(i % 2 === 0 ? base : second.url, 'GET', LOCKER, shopA)).status).toBe(200);
      expectRefused(await raw(second.url, 'GET', LOCKER, shopA), 60);
      expectRefused(await raw(base, 'GET', LOCKER, shopA), 60);
    });

    // Concurrent writers of one SQLite file in one test process wait on each other's busy handler
    // synchronously; several processes share a limit on PostgreSQL (docs/operations.md).
    it.runIf(engine === 'postgres')('hold a shared limit within its tolerance while both count in the process (docs/decisions.md)', async () => {
      const fleet = limitedFleet();
      fleet.marketplaces.find((m) => m.id === 'shop-a')!.rateLimits = { requests: { max: 40, windowSeconds: 60 } };
      tc.writeFleet(fleet);
      await tc.cloud.reloadFleet();
      await second.reloadFleet();
      tc.clock.advance(10_000); // past the remembered limits of the key
      const answers = await Promise.all(Array.from({ length: 120 }, (_, i) => raw(i % 2 === 0 ? base : second.url, 'GET', LOCKER, shopA)));
      const admitted = answers.filter((a) => a.status === 200).length;
      // Across P processes at most max + P * ceil(5% of max): each may hold that many unwritten.
      expect(admitted).toBeGreaterThanOrEqual(40);
      expect(admitted).toBeLessThanOrEqual(40 + 2 * Math.ceil(0.05 * 40));
      expect(answers.filter((a) => a.status === 429)).toHaveLength(120 - admitted);
    });

    it('share the failures and the lock of a guessed barcode', async () => {
      expect((await raw(base, 'PUT', SMART, shopB, orderBody('T-1'))).status).toBe(200);
      const code: string = (await raw(second.url, 'PUT', ROUTE, { 'Partner-Api-Key': KEYS.partner }, routeBody({}, { postamatIds: [1] }))).body.postamatAccessCode;
      const wrong = code === '00000000' ? '11111111' : '00000000';
      for (const url of [base, second.url, base]) {
        expect((await raw(url, 'POST', DETAIL, shopB, { barcode: 'T-1-P1', postamatAccessCode: wrong })).body.resultCode).toBe(210);
      }
      expectRefused(await raw(second.url, 'POST', DETAIL, shopB, { barcode: 'T-1-P1', postamatAccessCode: code }), 300);
      expect((await raw(base, 'GET', '/operator/alerts', { 'X-Operator-Api-Key': KEYS.operator })).body.alerts).toHaveLength(1);
    });
  });
});
