/**
 * The storage clock as scheduled (node-cron, every minute by default) under fake timers, and its
 * safety with several cloud processes: two clocks on one database move an order once.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type CloudDatabase } from '../../cloud/src/db/database.js';
import { loadStorageClockSettings } from '../../cloud/src/expiry/settings.js';
import { createStorageClock, type StorageClock } from '../../cloud/src/expiry/storage-clock.js';
import { OutboxSignals } from '../../cloud/src/outbox/signals.js';
import { testEngines } from '../helpers/cloud-db.js';
import { KEYS, orderBody, useNotifyCloud } from '../notify/helpers/notify-cloud.js';
import { lockerAppliedAll, orderRow } from '../notify/helpers/outbox-reads.js';

describe.each(testEngines())('storage clock (%s)', (engine) => {
  const h = useNotifyCloud(engine, { now: '2030-03-05T09:00:00Z' });
  const extra: { clock?: StorageClock; db?: CloudDatabase }[] = [];

  afterEach(async () => {
    vi.useRealTimers();
    for (const e of extra.splice(0)) {
      await e.clock?.stop();
      await e.db?.close();
    }
  });

  async function loadedOrder(externalId: string): Promise<string> {
    const res = await h.nc.call('PUT', '/api/v4/auth/delivery/smartorder/create', { key: KEYS.shopA, body: orderBody(externalId) });
    const id = await h.nc.orderId(externalId);
    await h.nc.fact(1, { type: 'parcel.loaded', orderId: id, barcode: `${externalId}-P1`, cellId: res.body.reserved[0].cellId as number, grantId: 'g' });
    return id;
  }

  /** Another cloud process's storage clock: its own connection to the same database. */
  async function otherProcessClock(cron = '0 0 1 1 *'): Promise<StorageClock> {
    const db = await openDatabase({ ...h.nc.db.location, poolSize: 4 });
    const clock = createStorageClock(
      { cdb: db, clock: { now: () => Date.now() }, signals: new OutboxSignals(), logger: pino({ level: 'silent' }) },
      loadStorageClockSettings({}, { cron }),
    );
    extra.push({ clock, db });
    return clock;
  }

  it('runs every minute by default', async () => {
    const id = await loadedOrder('S1');
    const holdUntil = (await orderRow(h.nc.db, id)).hold_until!;
    // One second past a minute: storage has ended, the next run is 59 seconds away.
    const start = Math.ceil(holdUntil / 60_000) * 60_000 + 1_000;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'], now: start });
    const clock = await otherProcessClock(loadStorageClockSettings({}).cron);
    await clock.start();
    await vi.advanceTimersByTimeAsync(58_000);
    await clock.idle();
    expect((await orderRow(h.nc.db, id)).state).toBe(3);
    await vi.advanceTimersByTimeAsync(2_000);
    await clock.idle();
    expect((await orderRow(h.nc.db, id)).state).toBe(6);
    await clock.stop();
  });

  // Several processes share PostgreSQL; SQLite serves one process (docs/decisions.md, "Storage clock and notifications").
  it.runIf(engine === 'postgres')('two processes expire and complete an order once', async () => {
    const id = await loadedOrder('S2');
    const holdUntil = (await orderRow(h.nc.db, id)).hold_until!;
    vi.useFakeTimers({ toFake: ['Date'], now: holdUntil });
    const [a, b] = [await otherProcessClock(), await otherProcessClock()];
    const runs = await Promise.all([a.tick(), b.tick()]);
    expect(runs.map((r) => r.expired).sort()).toEqual([0, 1]);
    expect((await orderRow(h.nc.db, id)).state).toBe(6);

    await lockerAppliedAll(h.nc.db, 1);
    const moved = await Promise.all([a.confirmRevocations(1), b.confirmRevocations(1), a.tick()]);
    expect(moved[0] + moved[1] + moved[2].awaitingReturn).toBe(1);
    expect((await orderRow(h.nc.db, id)).state).toBe(7);
    const sevens = await h.nc.db.db.selectFrom('notifications').select('body').where('order_id', '=', id).where('body', 'like', '%"event_id":"7"%').execute();
    expect(sevens).toHaveLength(1);
  });
});
