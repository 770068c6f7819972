/**
 * A marketplace's receiver that never answers holds at most NOTIFY_RECEIVER_CONCURRENCY attempts:
 * with shop-a's receiver hanging on six orders, shop-b's notification, written last, is still
 * delivered at once, and shop-a's notifications wait in the outbox, none lost. A receiver whose
 * answer never ends is read up to 64 KiB and cut, not buffered.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { transaction } from '../../cloud/src/db/transaction.js';
import { fleetSchema } from '../../cloud/src/fleet/fleet-schema.js';
import { provisionFleet } from '../../cloud/src/fleet/provision.js';
import { createNotificationDispatcher, type NotificationDispatcher } from '../../cloud/src/notify/dispatcher.js';
import { loadNotifySettings } from '../../cloud/src/notify/settings.js';
import { recordChange } from '../../cloud/src/outbox/record-change.js';
import { OutboxSignals } from '../../cloud/src/outbox/signals.js';
import { openTestDatabase, testEngines, type TestDatabase } from '../helpers/cloud-db.js';
import { eventually } from '../helpers/eventually.js';
import { makeTestPki } from '../helpers/test-ca.js';
import { startReceiver, type TestReceiver } from '../helpers/test-receiver.js';
import { statusDraft } from './helpers/drafts.js';
import { notifyFleet } from './helpers/notify-cloud.js';

describe.each(testEngines())('one slow receiver among several (%s)', (engine) => {
  let receiver: TestReceiver;
  let db: TestDatabase;
  let dispatcher: NotificationDispatcher;

  beforeEach(async () => {
    const pki = await makeTestPki();
    receiver = await startReceiver(pki);
    db = await openTestDatabase(engine);
    await provisionFleet(db, fleetSchema.parse(notifyFleet(receiver, pki)), Date.now());
  });
  afterEach(async () => {
    await receiver.down();
    await dispatcher?.stop();
    await db.close();
  });

  it('holds NOTIFY_RECEIVER_CONCURRENCY attempts at most; the other marketplace is delivered meanwhile, nothing is lost', async () => {
    // shop-a's receiver never answers; shop-b's bodies (one-element arrays) are answered at once.
    receiver.behaviour = ({ body }) => (Array.isArray(body) ? 200 : 'hang');
    const slow = ['A', 'B', 'C', 'D', 'E', 'F'].map((o) => statusDraft(o, 1));
    await transaction(db, (tx) => recordChange(tx, { at: Date.now(), notifications: [...slow, { ...statusDraft('Z', 1), marketplaceId: 'shop-b' }] }));
    dispatcher = createNotificationDispatcher(
      { cdb: db, clock: { now: () => Date.now() }, signals: new OutboxSignals(), logger: pino({ level: 'silent' }) },
      loadNotifySettings({ NOTIFY_CONCURRENCY: '4', NOTIFY_RECEIVER_CONCURRENCY: '2' }),
    );
    await dispatcher.start();

    await eventually(() => receiver.calls.some((c) => Array.isArray(c.body)), "shop-b's notification delivered");
    expect(receiver.calls.filter((c) => !Array.isArray(c.body)).length).toBeLessThanOrEqual(2);
    const rows = await db.db.selectFrom('notifications').select(['marketplace_id', 'delivered_at']).execute();
    expect(rows).toHaveLength(7);
    expect(rows.filter((r) => r.marketplace_id === 'shop-a' && r.delivered_at === null)).toHaveLength(6);
  });

  it('reads a receiver answer up to 64 KiB and cuts one that never ends; both marketplaces are delivered', async () => {
    receiver.behaviour = ({ body }) => (Array.isArray(body) ? 200 : 'flood');
    await transaction(db, (tx) => recordChange(tx, { at: Date.now(), notifications: [statusDraft('A', 1), { ...statusDraft('Z', 1), marketplaceId: 'shop-b' }] }));
    dispatcher = createNotificationDispatcher(
      { cdb: db, clock: { now: () => Date.now() }, signals: new OutboxSignals(), logger: pino({ level: 'silent' }) },
      loadNotifySettings({}),
    );
    await dispatcher.start();
    const delivered = async () => (await db.db.selectFrom('notifications').select('delivered_at').execute()).every((r) => r.delivered_at !== null);
    await eventually(delivered, 'both notifications delivered');
    await eventually(() => receiver.calls.find((c) => !Array.isArray(c.body))?.cut === true, 'the endless answer cut');
  });
});
