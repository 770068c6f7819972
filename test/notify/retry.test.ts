/**
 * Delivery when the receiver misbehaves, under fake timers: an answer other than 200, a timeout or
 * a refused connection is retried every 5 minutes (not earlier), an undelivered notification holds
 * back the later ones of its order but not other orders, and once the receiver recovers it gets
 * everything, in order per order.
 */
import { pino } from 'pino';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { transaction } from '../../cloud/src/db/transaction.js';
import { fleetSchema } from '../../cloud/src/fleet/fleet-schema.js';
import { provisionFleet } from '../../cloud/src/fleet/provision.js';
import { createNotificationDispatcher, type NotificationDispatcher } from '../../cloud/src/notify/dispatcher.js';
import { loadNotifySettings } from '../../cloud/src/notify/settings.js';
import { recordChange } from '../../cloud/src/outbox/record-change.js';
import { statusDraft } from './helpers/drafts.js';
import { OutboxSignals } from '../../cloud/src/outbox/signals.js';
import { openTestDatabase, testEngines, type TestDatabase } from '../helpers/cloud-db.js';
import { notifyFleet } from './helpers/notify-cloud.js';
import { makeTestPki, type TestPki } from '../helpers/test-ca.js';
import { startReceiver, type TestReceiver } from '../helpers/test-receiver.js';

const RETRY = 5 * 60_000;


describe.each(testEngines())('retries and ordering (%s)', (engine) => {
  let pki: TestPki;
  let receiver: TestReceiver;
  let db: TestDatabase;
  let dispatcher: NotificationDispatcher;

  beforeAll(async () => {
    pki = await makeTestPki();
  });
  beforeEach(async () => {
    receiver = await startReceiver(pki);
    db = await openTestDatabase(engine);
    await provisionFleet(db, fleetSchema.parse(notifyFleet(receiver, pki)), Date.now());
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    dispatcher = createNotificationDispatcher(
      { cdb: db, clock: { now: () => Date.now() }, signals: new OutboxSignals(), logger: pino({ level: 'silent' }) },
      loadNotifySettings({}),
    );
    // Order A: three notifications; order B: one.
    await transaction(db, (tx) => recordChange(tx, { at: Date.now(), notifications: [statusDraft('A', 1), statusDraft('A', 2), statusDraft('B', 1), statusDraft('A', 3)] }));
  });
  afterEach(async () => {
    vi.useRealTimers();
    await dispatcher.stop();
    await receiver.down();
    await db.close();
  });

  const barcodes = (order: string) => receiver.delivered.map((c) => c.body as { id: string; barcode: string }).filter((b) => b.id === order).map((b) => b.barcode);

  async function row(barcode: string) {
    const rows = await db.db.selectFrom('notifications').selectAll().execute();
    return rows.find((r) => (JSON.parse(r.body) as { barcode: string }).barcode === barcode)!;
  }

  /** The first attempt of A-1 has failed at t0; A-1 is retried 5 minutes later, not earlier. */
  async function recoversAfterFiveMinutes(t0: number, callsBefore: number): Promise<void> {
    const a1 = await row('A-1');
    expect(a1).toMatchObject({ attempts: 1, delivered_at: null, next_attempt_at: t0 + RETRY });
    expect((await row('A-2')).attempts).toBe(0); // held back behind A-1

    await vi.advanceTimersByTimeAsync(t0 + RETRY - 1 - Date.now());
    await dispatcher.idle();
    expect(receiver.calls).toHaveLength(callsBefore);

    await vi.advanceTimersByTimeAsync(1_000);
    await receiver.waitForCalls(callsBefore + 3 + (barcodes('B').length === 0 ? 1 : 0));
    await dispatcher.idle();
    expect(barcodes('A')).toEqual(['A-1', 'A-2', 'A-3']);
    expect(barcodes('B')).toEqual(['B-1']);
    expect(await row('A-1')).toMatchObject({ attempts: 2, last_status: 200 });
  }

  it.each([500, 401])('a receiver answering %i gets everything once it recovers; order B is not held back', async (code) => {
    let broken = true;
    receiver.behaviour = ({ body }) => (broken && (body as { id: string }).id === 'A' ? code : 200);
    const t0 = Date.now();
    await dispatcher.start();
    await receiver.waitForCalls(2);
    await dispatcher.idle();
    expect(barcodes('B')).toEqual(['B-1']);
    expect(await row('A-1')).toMatchObject({ last_status: code, last_error: `HTTP ${code}` });
    broken = false;
    await recoversAfterFiveMinutes(t0, 2);
  });

  it('a receiver that does not answer in time', async () => {
    let broken = true;
    receiver.behaviour = ({ body }) => (broken && (body as { id: string }).id === 'A' ? 'hang' : 200);
    await dispatcher.start();
    await receiver.waitForCalls(2);
    const t0 = Date.now() + 10_000;
    await vi.advanceTimersByTimeAsync(10_000);
    await dispatcher.idle();
    expect(await row('A-1')).toMatchObject({ last_status: null, last_error: 'timeout: no answer within 10000 ms' });
    broken = false;
    await recoversAfterFiveMinutes(t0, 2);
  });

  it('a receiver that is down for a while', async () => {
    await receiver.down();
    const t0 = Date.now();
    await dispatcher.start();
    await dispatcher.idle();
    expect((await row('A-1')).last_error).toMatch(/ECONNREFUSED/);
    expect((await row('B-1')).next_attempt_at).toBe(t0 + RETRY);
    await vi.advanceTimersByTimeAsync(2 * 60_000);
    await dispatcher.idle();
    await receiver.up();
    await recoversAfterFiveMinutes(t0, 0);
  });
});
