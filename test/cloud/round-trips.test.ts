/**
 * What a reservation costs in round trips to PostgreSQL, counted from outside the cloud: pg's
 * Client is wrapped, and a round trip is a query sent while the connection had none outstanding
 * (queries sent while others are in flight travel with them: pipelined). Every query of the
 * process counts (the request limit's merges, the order API calls' records), not only those of
 * the reservation's transaction, so the count cannot creep back up through a side door.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requires } from '../helpers/requirements.js';
import { KEYS, orderBody, testFleet } from './helpers/fleet-fixtures.js';
import { type TestCloud, startTestCloud } from './helpers/test-cloud.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';
const LOCKER = 70;
/** The goal: at most this many round trips per reservation. */
const MAX_ROUND_TRIPS = 4;

interface Counts {
  queries: number;
  roundTrips: number;
}

/** Counts the queries and round trips of every pg Client in this process while `counting` is set. */
function countRoundTrips(): { counts: Counts; counting: { on: boolean }; restore(): void } {
  const counts: Counts = { queries: 0, roundTrips: 0 };
  const counting = { on: false };
  const outstanding = new WeakMap<object, number>();
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with each client as `this`
  const original = pg.Client.prototype.query;
  type Query = (this: pg.Client, ...args: unknown[]) => unknown;
  const query: Query = function (this: pg.Client, ...args: unknown[]) {
    const inFlight = outstanding.get(this) ?? 0;
    if (counting.on) {
      counts.queries++;
      if (inFlight === 0) counts.roundTrips++;
    }
    outstanding.set(this, inFlight + 1);
    const settled = (): void => void outstanding.set(this, (outstanding.get(this) ?? 1) - 1);
    const result = (original as unknown as Query).apply(this, args);
    if (result instanceof Promise) result.then(settled, settled);
    else settled();
    return result;
  };
  pg.Client.prototype.query = query as unknown as typeof pg.Client.prototype.query;
  return { counts, counting, restore: () => void (pg.Client.prototype.query = original) };
}

describe.runIf(requires('postgres'))('round trips of a reservation on PostgreSQL', () => {
  let tc: TestCloud;
  let counter: ReturnType<typeof countRoundTrips>;

  beforeAll(async () => {
    counter = countRoundTrips();
    const fleet = testFleet();
    const cells = Array.from({ length: 48 }, (_, i) => ({ id: i + 1, width: 400, height: 200, board: 0, lock: i + 1 }));
    fleet.lockers.push({ ...fleet.lockers[0]!, id: LOCKER, name: 'Roomy', cells });
    tc = await startTestCloud('postgres', { fleet });
  });
  afterAll(async () => {
    await tc?.stop();
    counter?.restore();
  });

  it(`takes at most ${MAX_ROUND_TRIPS} round trips, everything the process does for it included`, async () => {
    // The first order of a locker reads its cells and holders into the process's view; the
    // measured ones find the view current.
    const warm = await tc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('RT-0', { postamatId: LOCKER }) });
    expect(warm.status).toBe(200);
    const n = 20;
    counter.counting.on = true;
    for (let i = 1; i <= n; i++) {
      const res = await tc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody(`RT-${i}`, { postamatId: LOCKER }) });
      expect(res.status).toBe(200);
      expect(res.body.reserved, JSON.stringify(res.body)).toHaveLength(1);
    }
    counter.counting.on = false;
    const perReservation = counter.counts.roundTrips / n;
    expect(perReservation, `${counter.counts.roundTrips} round trips (${counter.counts.queries} queries) for ${n} reservations`).toBeLessThanOrEqual(MAX_ROUND_TRIPS);
  });
});
