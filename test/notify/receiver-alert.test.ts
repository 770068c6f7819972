/**
 * The alert receiver.failing through real HTTP: a marketplace's receiver answering 500 raises it
 * at its third failed attempt in a row (RECEIVER_FAILING_ALERT_ATTEMPTS), long before the
 * notification's failing limit, naming the marketplace and the last error; the next delivery
 * resolves it. The cloud's manual clock moves the retries, no sleeps.
 */
import { describe, expect, it } from 'vitest';
import { loadCloudSettings } from '../../cloud/src/settings.js';
import { testEngines } from '../helpers/cloud-db.js';
import { KEYS, orderBody, useNotifyCloud } from './helpers/notify-cloud.js';

const RETRY_MS = 5 * 60_000;

interface AlertView {
  kind: string;
  status: string;
  severity: string;
  count: number;
  resolvedBy: string | null;
  detail: { marketplaceId?: string; lastStatus?: number; lastError?: string };
}

describe.each(testEngines())('the receiver.failing alert (%s)', (engine) => {
  const h = useNotifyCloud(engine, { notify: { failingAfterSeconds: 24 * 3600, failingAlertAttempts: 3 }, behaviour: () => 500 });

  const alerts = async (): Promise<AlertView[]> => {
    const res = await h.nc.call('GET', '/operator/alerts', { operatorKey: KEYS.operator });
    expect(res.status).toBe(200);
    return (res.body.alerts as AlertView[]).filter((a) => a.kind === 'receiver.failing');
  };
  const retry = async (calls: number): Promise<void> => {
    h.nc.clock.advance(RETRY_MS);
    h.nc.dispatcher.wake();
    await h.receiver.waitForCalls(calls);
    await h.nc.dispatcher.idle();
  };

  it('is refused at start unless a number of attempts, naming the variable', () => {
    expect(() => loadCloudSettings({ RECEIVER_FAILING_ALERT_ATTEMPTS: '0' })).toThrow(/RECEIVER_FAILING_ALERT_ATTEMPTS/);
  });

  it('is raised at the third failed attempt in a row, naming the marketplace and the error, and resolved by a delivery', async () => {
    const res = await h.nc.call('PUT', '/api/v4/auth/delivery/smartorder/create', { key: KEYS.shopA, body: orderBody('RF1') });
    const cellId = res.body.reserved[0].cellId as number;
    await h.nc.fact(1, { type: 'parcel.loaded', orderId: await h.nc.orderId('RF1'), barcode: 'RF1-P1', cellId, grantId: 'g' });
    await h.receiver.waitForCalls(1);
    await h.nc.dispatcher.idle();
    await retry(2);
    expect(await alerts()).toEqual([]);

    await retry(3);
    const [raised] = await alerts();
    expect(raised).toMatchObject({ status: 'open', severity: 'critical', detail: { marketplaceId: 'shop-a', lastStatus: 500, lastError: 'HTTP 500' } });
    await retry(4);
    expect(await alerts()).toMatchObject([{ status: 'open', count: 2 }]);

    h.receiver.behaviour = () => 200;
    await retry(5);
    expect(await alerts()).toMatchObject([{ status: 'resolved', resolvedBy: 'cloud' }]);
  });
});
