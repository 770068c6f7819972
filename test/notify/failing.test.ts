/**
 * Notifications that stay undelivered are never dropped: past the failing limit they are marked
 * failing (and still retried), listed for operators with the pick-up code masked, and redelivered
 * through the operator API or the CLI, in their order.
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { runCli } from './helpers/cli.js';
import { KEYS, orderBody, useNotifyCloud } from './helpers/notify-cloud.js';

const HOUR = 3_600_000;

describe.each(testEngines())('failing notifications (%s)', (engine) => {
  const h = useNotifyCloud(engine, { notify: { failingAfterSeconds: 3600 }, behaviour: () => 500 });

  async function loadedOrder(externalId: string): Promise<void> {
    const res = await h.nc.call('PUT', '/api/v4/auth/delivery/smartorder/create', { key: KEYS.shopA, body: orderBody(externalId) });
    const cellId = res.body.reserved[0].cellId as number;
    await h.nc.fact(1, { type: 'parcel.loaded', orderId: await h.nc.orderId(externalId), barcode: `${externalId}-P1`, cellId, grantId: 'g' });
  }

  const list = (status: string) => h.nc.call('GET', `/operator/notifications?status=${status}`, { operatorKey: KEYS.operator });

  it('marks failing past the limit, keeps retrying, lists (code masked) and redelivers through the operator API', async () => {
    await loadedOrder('F1');
    await h.receiver.waitForCalls(1);
    await h.nc.dispatcher.idle();
    expect(h.receiver.calls.map((c) => c.path)).toEqual(['/order-status']); // the later ones wait behind it
    expect((await list('failing')).body).toEqual({ notifications: [] });

    h.nc.clock.advance(HOUR);
    h.nc.dispatcher.wake();
    await h.receiver.waitForCalls(2);
    await h.nc.dispatcher.idle();
    const failing = await list('failing');
    expect(failing.status).toBe(200);
    expect(failing.body.notifications).toHaveLength(1);
    const head = failing.body.notifications[0];
    expect(head).toMatchObject({ kind: 'order-status', externalId: 'F1', marketplaceId: 'shop-a', attempts: 2, lastStatus: 500, lastError: 'HTTP 500' });
    expect(head.failingSince).toBe(new Date(h.nc.clock.now()).toISOString());
    expect(head.nextAttemptAt).toBe(new Date(h.nc.clock.now() + 5 * 60_000).toISOString()); // still retried

    const pending = (await list('pending')).body.notifications as { kind: string; body: Record<string, unknown> }[];
    expect(pending.map((n) => n.kind)).toEqual(['expiration-date-changes', 'user-access-code', 'order-status']);
    expect(pending[1]!.body.access_code).toBe('******');
    expect((await h.nc.call('GET', '/operator/notifications')).status).toBe(401);

    h.receiver.behaviour = () => 200;
    const again = await h.nc.call('POST', '/operator/notifications/redeliver', { operatorKey: KEYS.operator, body: { ids: [head.id] } });
    expect(again.body).toEqual({ orders: 1, notifications: 3 });
    await h.receiver.waitForCalls(5);
    await h.nc.dispatcher.idle();
    expect(h.receiver.delivered.map((c) => c.path)).toEqual(['/order-status', '/user-access-code', '/expiration-date-changes']);
    expect((await list('failing')).body).toEqual({ notifications: [] });
    expect((await list('delivered')).body.notifications).toHaveLength(3);
  });

  it('lists and redelivers through the CLI', async () => {
    await loadedOrder('F2');
    await h.receiver.waitForCalls(1);
    await h.nc.dispatcher.idle();
    h.nc.clock.advance(2 * HOUR);
    h.nc.dispatcher.wake();
    await h.receiver.waitForCalls(2);
    await h.nc.dispatcher.idle();

    const listed = await runCli(h.nc.db, ['notifications', 'failing', '--json']);
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as { externalId: string; kind: string; lastStatus: number }[];
    expect(rows).toMatchObject([{ externalId: 'F2', kind: 'order-status', lastStatus: 500 }]);
    expect((await runCli(h.nc.db, ['notifications', 'redeliver'])).code).toBe(2);

    h.receiver.behaviour = () => 200;
    const redelivered = await runCli(h.nc.db, ['notifications', 'redeliver', '--failing', '--marketplace', 'shop-a']);
    expect(redelivered.stdout).toContain('due now: 3 notifications of 1 orders');
    // The CLI writes to the database only: the running cloud finds the rows at its next poll.
    await h.receiver.waitForCalls(5);
    await h.nc.dispatcher.idle();
    expect(h.receiver.delivered.map((c) => c.path)).toEqual(['/order-status', '/user-access-code', '/expiration-date-changes']);
    expect(JSON.parse((await runCli(h.nc.db, ['notifications', 'failing', '--json'])).stdout)).toEqual([]);
  });
});
