/**
 * A year of one busy locker (about 150 parcels a day, bench/year-of-data.ts) on a fake clock,
 * swept every day the way the retention jobs sweep: the cloud's rows per locker stay bounded by the
 * horizons, the agent's SQLite file stays under 20 MB, and nothing still needed is deleted (an
 * order in storage since day one, a finished order whose notification was never delivered, the
 * event not yet acknowledged).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { OrderState } from '../../shared/src/enums.js';
import type { PartDeps } from '../../cloud/src/cloud-part.js';
import { retainedRowCounts } from '../../cloud/src/repositories/retention.js';
import { RetentionSweep } from '../../cloud/src/retention/sweep.js';
import { retentionSettingsSchema } from '../../cloud/src/retention/settings.js';
import { Scheduler } from '../../cloud/src/scheduler.js';
import { DAY_MS, PER_DAY, START, defaultAgentRetention, runAgentYear, seedDay } from '../../bench/year-of-data.js';
import { ManualSchedulerTimers } from '../cloud/helpers/manual-timers.js';
import { openTestDatabase, testEngines, type TestDatabase } from '../helpers/cloud-db.js';

describe.each(testEngines())('a year of one busy locker in the cloud (%s)', (engine) => {
  let db: TestDatabase;
  let sweep: RetentionSweep;
  let now = START;
  const days = engine === 'sqlite' ? 365 : 45; // PostgreSQL: the same rules over a shorter run, to keep the suite quick

  beforeAll(async () => {
    db = await openTestDatabase(engine);
    const logger = pino({ level: 'silent' });
    const settings = retentionSettingsSchema.parse(engine === 'sqlite' ? {} : { finishedOrderDays: 20, deliveredNotificationDays: 10, inboxEventDays: 10, routeSheetDays: 15, alertDays: 15 });
    const deps = { cdb: db, clock: { now: () => now }, logger, scheduler: new Scheduler({ logger, timers: new ManualSchedulerTimers() }) } as unknown as PartDeps;
    sweep = new RetentionSweep(deps, settings);
  });
  afterAll(async () => {
    await db?.close();
  });

  it('keeps the rows per locker bounded by the horizons and deletes nothing still needed', async () => {
    // Day one: an order still in storage, and a finished one whose notification the receiver never took.
    await seedDay(db, 0);
    await db.db.updateTable('orders').set({ state: OrderState.CourierLoaded }).where('id', '=', 'd0-o0').execute();
    await db.db.updateTable('notifications').set({ delivered_at: null, last_status: 503 }).where('uid', '=', 'd0-o1-n2').execute();
    // ... and an alert nobody resolved: a jammed door stays on the operator's list however old.
    const first = await db.db.selectFrom('locker_alerts').select('id').orderBy('id').executeTakeFirstOrThrow();
    await db.db.updateTable('locker_alerts').set({ status: 'open' }).where('id', '=', first.id).execute();

    for (let day = 1; day < days; day++) {
      now = START + day * DAY_MS;
      await seedDay(db, day);
      await sweep.sweep();
    }
    const counts = await retainedRowCounts(db.db);
    const s = retentionSettingsSchema.parse(engine === 'sqlite' ? {} : { finishedOrderDays: 20, deliveredNotificationDays: 10, inboxEventDays: 10, routeSheetDays: 15, alertDays: 15 });
    const kept = (horizon: number): number => Math.min(days, horizon + 2);
    expect(counts.orders).toBeLessThanOrEqual(PER_DAY * kept(s.finishedOrderDays) + 2);
    expect(counts.parcels).toBe(counts.orders);
    expect(counts.order_transitions).toBe(counts.orders * 3);
    expect(counts.notifications).toBeLessThanOrEqual(PER_DAY * 3 * kept(s.deliveredNotificationDays) + 3);
    expect(counts.inbox_events).toBeLessThanOrEqual(PER_DAY * 4 * kept(s.inboxEventDays));
    expect(counts.route_sheets).toBeLessThanOrEqual(kept(s.routeSheetDays) + 1);
    expect(counts.route_sheet_lockers).toBe(counts.route_sheets);
    expect(counts.locker_alerts).toBeLessThanOrEqual(5 * kept(s.alertDays) + 1);

    const survivors = await db.db.selectFrom('orders').select(['id', 'state']).where('id', 'in', ['d0-o0', 'd0-o1', 'd0-o2']).orderBy('id').execute();
    expect(survivors.map((o) => o.id)).toEqual(['d0-o0', 'd0-o1']);
    const undelivered = await db.db.selectFrom('notifications').select('uid').where('delivered_at', 'is', null).execute();
    expect(undelivered.map((n) => n.uid)).toEqual(['d0-o1-n2']);
    const openAlerts = await db.db.selectFrom('locker_alerts').select('id').where('status', '=', 'open').execute();
    expect(openAlerts.map((a) => a.id)).toEqual([first.id]);
    const parcelsKept = await db.db.selectFrom('parcels').select('order_id').where('order_id', 'in', ['d0-o0', 'd0-o1']).execute();
    expect(parcelsKept).toHaveLength(2);
  }, 240_000);
});

describe('a year of one busy locker on the agent', () => {
  it('keeps its SQLite file under 20 MB, and everything not yet acknowledged or finished', () => {
    const retention = defaultAgentRetention();
    const year = runAgentYear(365, true, retention);
    expect(year.bytes).toBeLessThan(20 * 1024 * 1024);
    expect(year.eventsKept).toBeLessThanOrEqual(PER_DAY * 3 * (retention.ackedEventDays + 1) + 1);
    // The one event never acknowledged is still there, and so is the order in storage.
    expect(year.keptOrderFound).toBe(true);
  }, 240_000);
});
