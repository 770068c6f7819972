/**
 * A failing receiver shows at once: from its first failed attempt the receivers view says
 * `failing` with the receiver's answer (the failing limit only marks notifications for the
 * failing list); pending and failing notifications are redelivered per receiver or per order,
 * audited. Through real HTTP against a real dispatcher and receiver.
 */
import { describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { KEYS, orderBody, useNotifyCloud } from './helpers/notify-cloud.js';

describe.each(testEngines())('receivers (%s)', (engine) => {
  const h = useNotifyCloud(engine, { notify: { failingAfterSeconds: 86_400 }, behaviour: () => 503 });
  const op = { operatorKey: KEYS.operator };

  async function loadedOrder(externalId: string): Promise<string> {
    const res = await h.nc.call('PUT', '/api/v4/auth/delivery/smartorder/create', { key: KEYS.shopA, body: orderBody(externalId) });
    const cellId = res.body.reserved[0].cellId as number;
    const orderId = await h.nc.orderId(externalId);
    await h.nc.fact(1, { type: 'parcel.loaded', orderId, barcode: `${externalId}-P1`, cellId, grantId: 'g' });
    return orderId;
  }
  const receiver = async (id: string) => {
    const answer = await h.nc.call('GET', '/operator/notifications/receivers', op);
    expect(answer.status).toBe(200);
    return (answer.body.receivers as { marketplaceId: string }[]).find((r) => r.marketplaceId === id) as Record<string, unknown>;
  };

  it('is failing from the first failed attempt, ok again from the first delivery; redelivered per receiver and per order', async () => {
    expect(await receiver('shop-a')).toMatchObject({ state: 'idle', undelivered: 0, lastAttemptAt: null });
    const first = await loadedOrder('RV-1');
    await h.receiver.waitForCalls(1);
    await h.nc.dispatcher.idle();
    // No waiting for the 24 h limit: the receiver is failing now, though no notification is marked.
    expect(await receiver('shop-a')).toMatchObject({ state: 'failing', undelivered: 3, markedFailing: 0, lastStatus: 503, lastError: 'HTTP 503', lastDeliveredAt: null });
    expect((await h.nc.call('GET', '/operator/notifications?status=failing', op)).body.notifications).toEqual([]);

    // Per order: its undelivered notifications due now, audited with the order.
    const second = await loadedOrder('RV-2');
    const byOrder = await h.nc.call('POST', '/operator/notifications/redeliver', { ...op, body: { orderId: second, reason: 'asked by the marketplace', note: 'ticket 81' } });
    expect(byOrder.body).toEqual({ orders: 1, notifications: 3 });
    const audit = await h.nc.call('GET', `/operator/audit?orderId=${second}`, op);
    expect(audit.body.items).toMatchObject([{ action: 'notifications.redeliver', reason: 'asked by the marketplace', note: 'ticket 81', detail: { target: { orderId: second } } }]);

    // The order's head was tried again (and failed) on the redelivery's wake-up.
    await h.receiver.waitForCalls(2);
    await h.nc.dispatcher.idle();
    expect(await receiver('shop-a')).toMatchObject({ state: 'failing', undelivered: 6 });

    // Per receiver, once it answers again: every undelivered one, pending or failing, of both orders.
    h.receiver.behaviour = () => 200;
    const calls = h.receiver.calls.length;
    const byReceiver = await h.nc.call('POST', '/operator/notifications/redeliver', { ...op, body: { undelivered: true, marketplaceId: 'shop-a', reason: 'receiver back' } });
    expect(byReceiver.body).toEqual({ orders: 2, notifications: 6 });
    await h.receiver.waitForCalls(calls + 6);
    await h.nc.dispatcher.idle();
    expect(await receiver('shop-a')).toMatchObject({ state: 'ok', undelivered: 0, lastStatus: 200, lastError: null });
    expect((await h.nc.call('GET', `/operator/orders/${first}`, op)).body.marketplace.every((n: { delivery: string }) => n.delivery === 'delivered')).toBe(true);

    // A receiver of another marketplace is not touched; an unknown one redelivers nothing.
    expect((await h.nc.call('POST', '/operator/notifications/redeliver', { ...op, body: { undelivered: true, marketplaceId: 'no-such-shop' } })).body).toEqual({ orders: 0, notifications: 0 });
    expect((await h.nc.call('POST', '/operator/notifications/redeliver', { ...op, body: { undelivered: true } })).status).toBe(400);
  });
});
