/**
 * The cloud's one scheduler: jobs on an interval, on a cron expression and on demand, driven here
 * by manual timers and a manual cron source; and the cloud process's background work all runs
 * as jobs of it.
 */
import { pino, type Logger } from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { startCloud } from '../../cloud/src/cloud.js';
import { Scheduler, type CronSource } from '../../cloud/src/scheduler.js';
import { loadCloudSettings } from '../../cloud/src/settings.js';
import { openTestDatabase } from '../helpers/cloud-db.js';
import { ManualSchedulerTimers } from './helpers/manual-timers.js';

/** A promise the test resolves by hand, to hold a run open. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

function recordingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** Lets the runs the timers started settle (promise callbacks only; no time passes). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('scheduler', () => {
  it('runs an interval job at each interval, never two runs of it at once', async () => {
    const timers = new ManualSchedulerTimers();
    const scheduler = new Scheduler({ logger: pino({ level: 'silent' }), timers });
    let runs = 0;
    let hold = gate();
    const job = scheduler.job('sweep', async () => {
      runs++;
      await hold.promise;
    }, { everyMs: 1000 });
    job.start();
    timers.advance(999);
    expect(runs).toBe(0);
    timers.advance(1);
    expect(runs).toBe(1);
    timers.advance(3000); // still running: the moments are skipped
    expect(runs).toBe(1);
    hold.open();
    await job.idle();
    hold = gate();
    timers.advance(1000);
    expect(runs).toBe(2);
    hold.open();
    await scheduler.stop();
    expect(timers.pending).toBe(0);
    timers.advance(10_000);
    expect(runs).toBe(2);
  });

  it('logs a failed run with the job name and keeps the schedule', async () => {
    const timers = new ManualSchedulerTimers();
    const { logger, lines } = recordingLogger();
    const scheduler = new Scheduler({ logger, timers });
    let runs = 0;
    const job = scheduler.job('flaky', () => {
      runs++;
      return runs === 1 ? Promise.reject(new Error('boom')) : Promise.resolve();
    }, { everyMs: 10 });
    job.start();
    timers.advance(10);
    await settle();
    expect(lines).toEqual([expect.objectContaining({ job: 'flaky', msg: 'background job failed' })]);
    timers.advance(10);
    await job.idle();
    expect(runs).toBe(2);
    await expect(job.run()).resolves.toBeUndefined();
    await scheduler.stop();
  });

  it('coalesces triggers during a run into one more run, and runs once after runIn()', async () => {
    const timers = new ManualSchedulerTimers();
    const scheduler = new Scheduler({ logger: pino({ level: 'silent' }), timers });
    let runs = 0;
    let hold = gate();
    const job = scheduler.job('drain', async () => {
      runs++;
      await hold.promise;
    }, { onDemand: true });
    job.trigger();
    expect(runs).toBe(0); // not started: nothing runs by itself
    job.start();
    job.trigger();
    job.trigger();
    job.trigger();
    expect(runs).toBe(1);
    const first = hold;
    hold = gate();
    first.open();
    await settle();
    expect(runs).toBe(2);
    hold.open();
    await job.idle();
    expect(runs).toBe(2);

    job.runIn(500);
    job.runIn(1000); // replaces the earlier one
    timers.advance(999);
    expect(runs).toBe(2);
    timers.advance(1);
    expect(runs).toBe(3);
    await job.idle();
    await scheduler.stop();
    expect(scheduler.active).toEqual([]);
  });

  it('runs a cron job at each match its cron source reports, until stopped', async () => {
    const fires = new Map<string, () => void>();
    const cron: CronSource = (expression, fire) => {
      fires.set(expression, fire);
      return { stop: () => Promise.resolve(void fires.delete(expression)) };
    };
    const scheduler = new Scheduler({ logger: pino({ level: 'silent' }), cron });
    let runs = 0;
    const job = scheduler.job('clock', () => Promise.resolve(++runs), { cron: '*/5 * * * *' });
    job.start();
    expect(scheduler.active).toEqual(['clock']);
    fires.get('*/5 * * * *')!();
    await job.idle();
    expect(runs).toBe(1);
    await expect(job.run()).resolves.toBe(2);
    await scheduler.stop();
    expect(fires.size).toBe(0);
  });

  it("holds every background job of the cloud process, on the timers it is given", async () => {
    const db = await openTestDatabase('sqlite');
    const timers = new ManualSchedulerTimers();
    const settings = loadCloudSettings({}, { config: { port: 0, logLevel: 'silent' }, mqtt: { brokerPort: 0 }, sandbox: { firstPort: 0 } });
    const cloud = await startCloud(settings, { database: db, timers, logger: pino({ level: 'silent' }) });
    try {
      expect(cloud.scheduler.active.sort()).toEqual(['idempotency-key-sweeper', 'locker-link-poll', 'locker-link-trim', 'notification-dispatcher', 'offline-watch', 'reservation-sweeper', 'retention-sweep', 'rollouts', 'sandbox-lockers', 'storage-clock']);
      expect(cloud.brokerUrl).toMatch(/^mqtt:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await cloud.stop();
      await db.close();
    }
    expect(cloud.scheduler.active).toEqual([]);
    expect(timers.pending).toBe(0);
  });
});
