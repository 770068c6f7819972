/**
 * The receiver's certificate is verified: without the marketplace's CA file a receiver signed by
 * that CA is not trusted (nothing reaches it); plain http only when the settings allow it.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../../cloud/src/db/transaction.js';
import { fleetSchema } from '../../cloud/src/fleet/fleet-schema.js';
import { provisionFleet } from '../../cloud/src/fleet/provision.js';
import { createNotificationDispatcher, type NotificationDispatcher } from '../../cloud/src/notify/dispatcher.js';
import { loadNotifySettings, type NotifySettings } from '../../cloud/src/notify/settings.js';
import { recordChange } from '../../cloud/src/outbox/record-change.js';
import { OutboxSignals } from '../../cloud/src/outbox/signals.js';
import { openTestDatabase, type TestDatabase } from '../helpers/cloud-db.js';
import { statusDraft } from './helpers/drafts.js';
import { notifyFleet } from './helpers/notify-cloud.js';
import { makeTestPki, type TestPki } from '../helpers/test-ca.js';
import { startReceiver, type TestReceiver } from '../helpers/test-receiver.js';

describe('receiver transport', () => {
  let pki: TestPki;
  let receiver: TestReceiver;
  let db: TestDatabase;
  let dispatcher: NotificationDispatcher | undefined;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    pki = await makeTestPki();
  });
  afterEach(async () => {
    await dispatcher?.stop();
    for (const c of closers.splice(0)) await c();
    await receiver.down();
    await db.close();
  });

  async function deliverOnce(url: string | null, settings: Partial<NotifySettings>, caFile?: string) {
    receiver = await startReceiver(pki);
    db = await openTestDatabase('sqlite');
    const fleet = notifyFleet(receiver, pki, (f) => {
      const shopA = f.marketplaces.find((m) => m.id === 'shop-a')!;
      shopA.receiver = { ...shopA.receiver!, url: url ?? receiver.url, caFile };
    });
    await provisionFleet(db, fleetSchema.parse(fleet), Date.now());
    await transaction(db, (tx) => recordChange(tx, { at: Date.now(), notifications: [statusDraft('A', 1)] }));
    dispatcher = createNotificationDispatcher({ cdb: db, clock: { now: () => Date.now() }, signals: new OutboxSignals(), logger: pino({ level: 'silent' }) }, loadNotifySettings({}, settings));
    await dispatcher.start();
    await dispatcher.idle();
    return db.db.selectFrom('notifications').selectAll().executeTakeFirstOrThrow();
  }

  it('does not trust a receiver whose CA the marketplace did not name', async () => {
    const row = await deliverOnce(null, {});
    expect(row.delivered_at).toBeNull();
    expect(row.last_error).toMatch(/certificate|UNABLE_TO_VERIFY/i);
    expect(receiver.calls).toEqual([]);
  });

  it('trusts it with the CA file', async () => {
    const row = await deliverOnce(null, {}, pki.caFile);
    expect(row.delivered_at).not.toBeNull();
    expect(receiver.delivered).toHaveLength(1);
  });

  it('refuses plain http unless allowed', async () => {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        bodies.push(raw);
        res.end('ok');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(async () => {
      server.close();
      await once(server, 'close');
    });
    const address = server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

    const refused = await deliverOnce(url, {});
    expect(refused).toMatchObject({ delivered_at: null, last_error: expect.stringMatching(/plain http/) as unknown });
    expect(bodies).toEqual([]);
    await dispatcher!.stop();
    await receiver.down();
    await db.close();

    const allowed = await deliverOnce(url, { allowPlainHttp: true });
    expect(allowed.delivered_at).not.toBeNull();
    expect(bodies).toHaveLength(1);
  });
});
