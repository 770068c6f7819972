/**
 * A notification recorded by one cloud process is delivered by another process's dispatcher at
 * once (PostgreSQL LISTEN/NOTIFY), not at its poll: the poll is an hour here, so only the
 * cross-process wake-up can deliver before the test's timeout.
 */
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type CloudDatabase } from '../../cloud/src/db/database.js';
import { transaction } from '../../cloud/src/db/transaction.js';
import { fleetSchema } from '../../cloud/src/fleet/fleet-schema.js';
import { provisionFleet } from '../../cloud/src/fleet/provision.js';
import { createNotificationDispatcher } from '../../cloud/src/notify/dispatcher.js';
import { loadNotifySettings } from '../../cloud/src/notify/settings.js';
import { bridgeNotificationWakeups, type CrossProcessWakeups } from '../../cloud/src/outbox/cross-process.js';
import { recordChange } from '../../cloud/src/outbox/record-change.js';
import { OutboxSignals } from '../../cloud/src/outbox/signals.js';
import { openTestDatabase, type TestDatabase } from '../helpers/cloud-db.js';
import { requires } from '../helpers/requirements.js';
import { makeTestPki, type TestPki } from '../helpers/test-ca.js';
import { startReceiver, type TestReceiver } from '../helpers/test-receiver.js';
import { statusDraft } from './helpers/drafts.js';
import { notifyFleet } from './helpers/notify-cloud.js';

const silent = pino({ level: 'silent' });

describe.runIf(requires('postgres'))('notifications wake dispatchers of other processes (PostgreSQL)', () => {
  let pki: TestPki;
  let receiver: TestReceiver;
  let db: TestDatabase;
  const cleanup: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    pki = await makeTestPki();
  });
  afterEach(async () => {
    for (const undo of cleanup.splice(0).reverse()) await undo();
  });

  /** One cloud process: its own pool, signals and wake-up bridge. */
  async function process(): Promise<{ cdb: CloudDatabase; signals: OutboxSignals }> {
    const cdb = await openDatabase({ ...db.location, poolSize: 2 });
    cleanup.push(() => cdb.close());
    const signals = new OutboxSignals();
    const bridge: CrossProcessWakeups = bridgeNotificationWakeups(cdb, db.location, signals, silent)!;
    cleanup.push(() => bridge.stop());
    await bridge.ready();
    return { cdb, signals };
  }

  it('process A records, process B delivers without waiting for its poll', async () => {
    receiver = await startReceiver(pki);
    cleanup.push(() => receiver.down());
    db = await openTestDatabase('postgres');
    cleanup.push(() => db.close());
    await provisionFleet(db, fleetSchema.parse(notifyFleet(receiver, pki)), Date.now());

    const a = await process();
    const b = await process();
    const dispatcher = createNotificationDispatcher(
      { cdb: b.cdb, clock: { now: () => Date.now() }, signals: b.signals, logger: silent },
      loadNotifySettings({}, { pollSeconds: 3600 }),
    );
    await dispatcher.start();
    cleanup.push(() => dispatcher.stop());
    await dispatcher.idle(); // the first look found nothing: B now sleeps for an hour

    for (const n of [1, 2]) {
      await transaction(a.cdb, (tx) => recordChange(tx, { at: Date.now(), notifications: [statusDraft('W', n)] }));
      a.signals.notificationsRecorded(); // as the lifecycle does after its commit
      await receiver.waitFor(() => receiver.delivered.length >= n);
    }
    expect(receiver.delivered.map((c) => (c.body as { barcode: string }).barcode)).toEqual(['W-1', 'W-2']);
  });
});
