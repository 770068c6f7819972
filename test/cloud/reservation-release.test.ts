import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KEYS, orderBody } from './helpers/fleet-fixtures.js';
import { commandsFor, lastCseq, orderRow, parcelsOf } from './helpers/db-queries.js';
import { loadIntoLocker } from './helpers/locker-facts.js';
import { type TestCloud, startTestCloud } from './helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';

describe.each(testEngines())('release of reservations not loaded in time on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    // Only the sweeper's interval is faked: the HTTP server and the database keep real timers.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    tc = await startTestCloud(engine, { config: { reservationGraceMinutes: 30, reservationSweepSeconds: 60 } });
  });
  afterAll(async () => {
    await tc.stop();
    vi.useRealTimers();
  });

  /** Lets the periodic trigger fire once and waits for the sweep it started. */
  const tick = async () => {
    await vi.advanceTimersByTimeAsync(60_000);
    await tc.cloud.reservations.settled();
  };

  it('releases reservations after the end of dateDelivery in locker time plus the grace; the order stays New', async () => {
    const as = { key: KEYS.shopA };
    await tc.call('PUT', SMART, { ...as, body: orderBody('R-MSK') }); // locker 1, Moscow (+03)
    await tc.call('PUT', SMART, { ...as, body: orderBody('R-EKB', { postamatId: 2 }) }); // locker 2, Yekaterinburg (+05)
    await tc.call('PUT', SMART, { ...as, body: orderBody('R-LOADED') });
    await loadIntoLocker(tc, 'shop-a', 'R-LOADED');
    await tc.call('PUT', SMART, { ...as, body: orderBody('R-LATER', { dateDelivery: '2030-03-06' }) });
    const cells = async (id: string) => (await parcelsOf(tc, (await orderRow(tc, 'shop-a', id)).id)).map((p) => p.cell_id);
    expect([await cells('R-MSK'), await cells('R-EKB')]).toEqual([[1], [1]]);

    // 2030-03-05 ends at 19:00Z in Yekaterinburg and 21:00Z in Moscow; the grace is 30 minutes.
    tc.clock.set('2030-03-05T19:29:59Z');
    await tick();
    expect(await cells('R-EKB')).toEqual([1]);

    const cseq = await lastCseq(tc, 2);
    tc.clock.set('2030-03-05T19:30:00Z');
    await tick();
    expect(await cells('R-EKB')).toEqual([null]);
    expect(await cells('R-MSK')).toEqual([1]);
    expect((await orderRow(tc, 'shop-a', 'R-EKB')).state).toBe(0);
    const [cmd] = await commandsFor(tc, 2, cseq);
    expect(cmd?.type === 'order.upsert' && cmd.order.parcels.map((p) => [p.state, p.cellId])).toEqual([['pending', null]]);

    tc.clock.set('2030-03-05T21:30:00Z');
    await tick();
    expect(await cells('R-MSK')).toEqual([null]);
    expect(await cells('R-LOADED')).toEqual([2]); // loaded parcels are not reservations
    expect(await cells('R-LATER')).not.toEqual([null]);

    // Nothing more to release: a further sweep records nothing.
    const after = await lastCseq(tc, 1);
    await tc.cloud.reservations.sweep();
    expect(await lastCseq(tc, 1)).toBe(after);

    // The released cell is free for the next order.
    const next = await tc.call('PUT', SMART, { ...as, body: orderBody('R-NEXT', { dateDelivery: '2030-03-06' }) });
    expect(next.body.reserved[0].cellId).toBe(1);
  });
});
