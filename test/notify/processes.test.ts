/**
 * Several cloud processes on one PostgreSQL deliver each notification once, each order's in
 * order; and the dispatcher's logs never carry a notification's body (a pick-up code).
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../../shared/src/redact.js';
import { openDatabase, type CloudDatabase } from '../../cloud/src/db/database.js';
import { transaction } from '../../cloud/src/db/transaction.js';
import { fleetSchema } from '../../cloud/src/fleet/fleet-schema.js';
import { provisionFleet } from '../../cloud/src/fleet/provision.js';
import { createNotificationDispatcher, type NotificationDispatcher } from '../../cloud/src/notify/dispatcher.js';
import { loadNotifySettings } from '../../cloud/src/notify/settings.js';
import { recordChange, type NotificationDraft } from '../../cloud/src/outbox/record-change.js';
import { statusDraft } from './helpers/drafts.js';
import { OutboxSignals } from '../../cloud/src/outbox/signals.js';
import { openTestDatabase, testEngines, type TestDatabase } from '../helpers/cloud-db.js';
import { notifyFleet } from './helpers/notify-cloud.js';
import { makeTestPki, type TestPki } from '../helpers/test-ca.js';
import { startReceiver, type TestReceiver } from '../helpers/test-receiver.js';

const silent = pino({ level: 'silent' });


describe('notification processes', () => {
  let pki: TestPki;
  let receiver: TestReceiver;
  let db: TestDatabase;
  const opened: CloudDatabase[] = [];
  const dispatchers: NotificationDispatcher[] = [];

  beforeAll(async () => {
    pki = await makeTestPki();
  });
  afterEach(async () => {
    for (const d of dispatchers.splice(0)) await d.stop();
    for (const o of opened.splice(0)) await o.close();
    await receiver.down();
    await db.close();
  });

  async function setUp(engine: 'sqlite' | 'postgres', drafts: NotificationDraft[]): Promise<void> {
    receiver = await startReceiver(pki);
    db = await openTestDatabase(engine);
    await provisionFleet(db, fleetSchema.parse(notifyFleet(receiver, pki)), Date.now());
    await transaction(db, (tx) => recordChange(tx, { at: Date.now(), notifications: drafts }));
  }

  it.runIf(testEngines().includes('postgres'))('two processes on one PostgreSQL deliver each notification once, in order per order', async () => {
    const orders = Array.from({ length: 12 }, (_, i) => `O${i}`);
    await setUp('postgres', [1, 2, 3].flatMap((n) => orders.map((o) => statusDraft(o, n))));
    for (let i = 0; i < 2; i++) {
      const cdb = await openDatabase({ ...db.location, poolSize: 4 });
      opened.push(cdb);
      const d = createNotificationDispatcher({ cdb, clock: { now: () => Date.now() }, signals: new OutboxSignals(), logger: silent }, loadNotifySettings({}, { concurrency: 4 }));
      dispatchers.push(d);
    }
    await Promise.all(dispatchers.map((d) => d.start()));
    await receiver.waitFor(() => receiver.delivered.length >= 36);
    await Promise.all(dispatchers.map((d) => d.idle()));
    expect(receiver.calls).toHaveLength(36);
    expect(new Set(receiver.calls.map((c) => c.headers['x-notification-id'])).size).toBe(36);
    for (const o of orders) {
      const seen = receiver.delivered.map((c) => c.body as { id: string; barcode: string }).filter((b) => b.id === o);
      expect(seen.map((b) => b.barcode)).toEqual([`${o}-1`, `${o}-2`, `${o}-3`]);
    }
  });

  it.each(testEngines())('logs name notifications, never their bodies (%s)', async (engine) => {
    const code = '483920';
    await setUp(engine, [{ marketplaceId: 'shop-a', orderId: 'order-K', kind: 'user-access-code', body: { id: 'K1', postamat_id: '1', access_code: code } }]);
    let first = true;
    receiver.behaviour = () => (first ? ((first = false), 500) : 200);
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino(loggerOptions('cloud', 'debug'), sink);
    const d = createNotificationDispatcher({ cdb: db, clock: { now: () => Date.now() }, signals: new OutboxSignals(), logger }, loadNotifySettings({}, { retrySeconds: 1 }));
    dispatchers.push(d);
    await d.start();
    await receiver.waitFor(() => receiver.delivered.length === 1);
    await d.idle();
    const text = lines.join('');
    expect(text).toContain('notification not delivered');
    expect(text).toContain('notification delivered');
    expect(text).not.toContain(code);
    expect(text).not.toContain(receiver.password);
  });
});
