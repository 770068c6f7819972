/**
 * Notifications that stay undelivered are never dropped: past the failing limit they are marked
 * failing (and still retried), listed for operators with the pick-up code masked, and redelivered
 * through the operator API or the CLI, in their order.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { runCli } from './helpers/cli.js';
import { KEYS, notifyFleet, orderBody, startNotifyCloud, type NotifyCloud } from './helpers/notify-cloud.js';
import { makeTestPki, type TestPki } from './helpers/test-ca.js';
import { startReceiver, type TestReceiver } from './helpers/test-receiver.js';

const HOUR = 3_600_000;

describe.each(testEngines())('failing notifications (%s)', (engine) => {
  let pki: TestPki;
  let receiver: TestReceiver;
  let nc: NotifyCloud;

  beforeAll(async () => {
    pki = await makeTestPki();
  });
  beforeEach(async () => {
    receiver = await startReceiver(pki);
    receiver.behaviour = () => 500;
    nc = await startNotifyCloud(engine, { fleet: notifyFleet(receiver, pki), notify: { failingAfterSeconds: 3600 } });
  });
  afterEach(async () => {
    await nc.stop();
    await receiver.down();
  });

  async function loadedOrder(externalId: string): Promise<void> {
    const res = await nc.call('PUT', '/api/v4/auth/delivery/smartorder/create', { key: KEYS.shopA, body: orderBody(externalId) });
    const cellId = res.body.reserved[0].cellId as number;
    await nc.fact(1, { type: 'parcel.loaded', orderId: await nc.orderId(externalId), barcode: `${externalId}-P1`, cellId, grantId: 'g' });
  }

  const list = (status: string) => nc.call('GET', `/operator/notifications?status=${status}`, { operatorKey: KEYS.operator });

  it('marks failing past the limit, keeps retrying, lists (code masked) and redelivers through the operator API', async () => {
    await loadedOrder('F1');
    await receiver.waitForCalls(1);
    await nc.dispatcher.idle();
    expect(receiver.calls.map((c) => c.path)).toEqual(['/order-status']); // the later ones wait behind it
    expect((await list('failing')).body).toEqual({ notifications: [] });

    nc.clock.advance(HOUR);
    nc.dispatcher.wake();
    await receiver.waitForCalls(2);
    await nc.dispatcher.idle();
    const failing = await list('failing');
    expect(failing.status).toBe(200);
    expect(failing.body.notifications).toHaveLength(1);
    const head = failing.body.notifications[0];
    expect(head).toMatchObject({ kind: 'order-status', externalId: 'F1', marketplaceId: 'shop-a', attempts: 2, lastStatus: 500, lastError: 'HTTP 500' });
    expect(head.failingSince).toBe(new Date(nc.clock.now()).toISOString());
    expect(head.nextAttemptAt).toBe(new Date(nc.clock.now() + 5 * 60_000).toISOString()); // still retried

    const pending = (await list('pending')).body.notifications as { kind: string; body: Record<string, unknown> }[];
    expect(pending.map((n) => n.kind)).toEqual(['expiration-date-changes', 'user-access-code', 'order-status']);
    expect(pending[1]!.body.access_code).toBe('******');
    expect((await nc.call('GET', '/operator/notifications')).status).toBe(401);

    receiver.behaviour = () => 200;
    const again = await nc.call('POST', '/operator/notifications/redeliver', { operatorKey: KEYS.operator, body: { ids: [head.id] } });
    expect(again.body).toEqual({ orders: 1, notifications: 3 });
    await receiver.waitForCalls(5);
    await nc.dispatcher.idle();
    expect(receiver.delivered.map((c) => c.path)).toEqual(['/order-status', '/user-access-code', '/expiration-date-changes']);
    expect((await list('failing')).body).toEqual({ notifications: [] });
    expect((await list('delivered')).body.notifications).toHaveLength(3);
  });

  it('lists and redelivers through the CLI', async () => {
    await loadedOrder('F2');
    await receiver.waitForCalls(1);
    await nc.dispatcher.idle();
    nc.clock.advance(2 * HOUR);
    nc.dispatcher.wake();
    await receiver.waitForCalls(2);
    await nc.dispatcher.idle();

    const listed = await runCli(nc.db, ['notifications', 'failing', '--json']);
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as { externalId: string; kind: string; lastStatus: number }[];
    expect(rows).toMatchObject([{ externalId: 'F2', kind: 'order-status', lastStatus: 500 }]);
    expect((await runCli(nc.db, ['notifications', 'redeliver'])).code).toBe(2);

    receiver.behaviour = () => 200;
    const redelivered = await runCli(nc.db, ['notifications', 'redeliver', '--failing', '--marketplace', 'shop-a']);
    expect(redelivered.stdout).toContain('due now: 3 notifications of 1 orders');
    // The CLI writes to the database only: the running cloud finds the rows at its next poll.
    await receiver.waitForCalls(5);
    await nc.dispatcher.idle();
    expect(receiver.delivered.map((c) => c.path)).toEqual(['/order-status', '/user-access-code', '/expiration-date-changes']);
    expect(JSON.parse((await runCli(nc.db, ['notifications', 'failing', '--json'])).stdout)).toEqual([]);
  });
});
