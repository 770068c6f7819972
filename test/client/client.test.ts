/**
 * @parcel-locker/client against a started cloud: its generated types are what docs/openapi.json
 * gives; a marketplace creates an order and reads its locker through its client; an operator finds it
 * through the operator client; the cloud's notifications (signed, in the array form) reach a
 * receiver built with the kit over HTTPS, each handled once, typed; the kit refuses what the
 * contract says a receiver must refuse.
 */
import { createServer, type Server } from 'node:https';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketplaceClient, notificationHandler, notificationListener, operatorClient, type ReceivedNotification } from '../../packages/client/src/index.js';
import { CLIENT_SCHEMA_FILE, clientSchemaText } from '../../scripts/generate-client.js';
import { signatureHeader } from '../../cloud/src/notify/signature.js';
import { testFleet } from '../cloud/helpers/fleet-fixtures.js';
import { eventually } from '../helpers/eventually.js';
import { makeTestPki, type TestPki } from '../helpers/test-ca.js';
import { KEYS, SHOP_B_SECRET, startNotifyCloud, type NotifyCloud } from '../notify/helpers/notify-cloud.js';

const LOGIN = 'shop-b-receiver';
const PASSWORD = 'receiver-password-1';

it('carries the types openapi-typescript makes of docs/openapi.json (regenerate: npx tsx scripts/generate-client.ts)', async () => {
  expect(readFileSync(CLIENT_SCHEMA_FILE, 'utf8')).toBe(await clientSchemaText());
});

describe('the client and the receiver kit against a started cloud', () => {
  let pki: TestPki;
  let server: Server;
  let nc: NotifyCloud;
  const received: ReceivedNotification[] = [];

  beforeAll(async () => {
    pki = await makeTestPki();
    // The cloud signs with its (manual) clock's time; the receiver's clock is the same here.
    const now = () => Math.floor(nc.clock.now() / 1000);
    server = createServer({ cert: pki.cert, key: pki.key }, notificationListener({ login: LOGIN, password: PASSWORD, signingSecret: SHOP_B_SECRET, now }, async (n) => {
      received.push(n);
      return Promise.resolve();
    }));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `https://localhost:${(server.address() as AddressInfo).port}/hooks`;
    const fleet = testFleet();
    for (const m of fleet.marketplaces) {
      if (m.id === 'shop-b') m.receiver = { url, login: LOGIN, password: PASSWORD, caFile: pki.caFile, bodyForm: 'array', hmacSecret: SHOP_B_SECRET };
    }
    nc = await startNotifyCloud('sqlite', { fleet, now: '2030-03-05T09:00:00Z' });
  });
  afterAll(async () => {
    await nc?.stop();
    server?.close();
  });

  it('creates an order, reads its locker, finds it as an operator, and receives each notification once, typed', async () => {
    const shop = marketplaceClient({ baseUrl: nc.cloud.url, apiKey: KEYS.shopB });
    const created = await shop.PUT('/api/v4/auth/delivery/smartorder/create', {
      body: {
        externalId: 'KIT-1',
        number: 'N-KIT-1',
        postamatId: 1,
        dateDelivery: '2030-03-05',
        parcels: [{ barcode: 'KIT-1-P1', dimension: { length: 300, width: 200, height: 80 } }],
        clientInvoice: { cart: { items: [{ count: 1, barcode: 'KIT-1-P1', name: 'Kettle', subjectType: 1, price: 150000, totalSum: 150000, taxId: 1, taxSystemId: 1 }], prePaymentSum: 150000 } },
        notification: { emails: ['client@example.ru'], phones: ['+79161234567'] },
      },
    });
    expect(created.response.status).toBe(200);
    expect(created.response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const cellId = created.data!.reserved[0]!.cellId;

    const locker = await shop.GET('/api/v4/auth/postamat/get-by-id', { params: { query: { postamatId: 1, cellsType: 1 } } });
    expect(locker.error).toBeUndefined();
    expect(locker.data!.id).toBe(1);
    expect(locker.data!.cells.length).toBeGreaterThan(0);

    const ops = operatorClient({ baseUrl: nc.cloud.url, apiKey: KEYS.operator, language: 'en' });
    const found = await ops.GET('/operator/orders', { params: { query: { query: 'KIT-1' } } });
    expect(found.data!.items.map((o) => o.externalId)).toContain('KIT-1');

    // The locker loads the parcel: placement (3), the pick-up code and the end of storage follow.
    await nc.fact(1, { type: 'parcel.loaded', orderId: await nc.orderId('KIT-1', 'shop-b'), barcode: 'KIT-1-P1', cellId, grantId: 'grant-kit' });
    await eventually(() => (received.length >= 3 ? true : null), 'three notifications');
    await nc.dispatcher.idle();
    expect(received.map((n) => n.kind)).toEqual(['order-status', 'user-access-code', 'expiration-date-changes']);
    const [status, code, expiry] = received;
    if (status?.kind !== 'order-status' || code?.kind !== 'user-access-code' || expiry?.kind !== 'expiration-date-changes') throw new Error('unexpected kinds');
    expect(status.body).toMatchObject({ id: 'KIT-1', barcode: 'KIT-1-P1', event_id: '3', status: 'Courier loaded', cell_id: cellId });
    expect(code.body.access_code).toMatch(/^\d{6}$/);
    expect(expiry.body.expire_dt).toMatch(/^2030-03-\d\dT/);
    expect(new Set(received.map((n) => n.id)).size).toBe(3);
  });
});

describe('the receiver kit refuses what a receiver must refuse', () => {
  const options = { login: LOGIN, password: PASSWORD, signingSecret: SHOP_B_SECRET, now: () => 1_900_000_000 };
  const body = '[{"id":"K-1","barcode":"K-1-P1","event_id":"7","status":"Awaiting return","dt":"2030-03-07T12:02:00+03:00"}]';
  const id = '0190f0e2-7b1c-7d4e-8f00-0123456789ab';
  const basic = `Basic ${Buffer.from(`${LOGIN}:${PASSWORD}`).toString('base64')}`;
  const request = (over: { path?: string; headers?: Record<string, string | undefined>; rawBody?: string } = {}) => ({
    path: over.path ?? '/hooks/order-status',
    rawBody: over.rawBody ?? body,
    headers: { authorization: basic, 'x-notification-id': id, 'x-signature': signatureHeader(SHOP_B_SECRET, over.rawBody ?? body, 1_900_000_000), ...over.headers },
  });

  it('answers 200 once per notification id, and 200 again without handling a repeat', async () => {
    const handled: ReceivedNotification[] = [];
    const handle = notificationHandler(options, async (n) => {
      handled.push(n);
      return Promise.resolve();
    });
    expect((await handle(request())).status).toBe(200);
    expect((await handle(request())).status).toBe(200);
    expect(handled).toHaveLength(1);
    expect(handled[0]).toMatchObject({ kind: 'order-status', id, body: { id: 'K-1', event_id: '7' } });
  });

  it('refuses wrong credentials, a missing, altered or stale signature, a body that is not its kind, and an unknown path', async () => {
    const handle = notificationHandler(options, () => Promise.resolve());
    const stale = signatureHeader(SHOP_B_SECRET, body, 1_900_000_000 - 301);
    const cases: [ReturnType<typeof request>, number][] = [
      [request({ headers: { authorization: `Basic ${Buffer.from(`${LOGIN}:wrong`).toString('base64')}` } }), 401],
      [request({ headers: { authorization: undefined } }), 401],
      [request({ headers: { 'x-signature': undefined } }), 401],
      [request({ headers: { 'x-signature': stale } }), 401],
      [{ ...request(), rawBody: body.replace('K-1-P1', 'K-1-P2') }, 401],
      [request({ rawBody: '{"id":"K-1"}' }), 400],
      [request({ rawBody: 'not json' }), 400],
      [request({ headers: { 'x-notification-id': 'x' } }), 400],
      [request({ path: '/hooks/other' }), 404],
    ];
    for (const [req, status] of cases) expect((await handle(req)).status, JSON.stringify(req.headers)).toBe(status);
  });

  it('answers 500 when the handler fails, so the cloud sends it again, and handles the repeat', async () => {
    let fail = true;
    const handle = notificationHandler(options, () => (fail ? Promise.reject(new Error('store down')) : Promise.resolve()));
    expect((await handle(request())).status).toBe(500);
    fail = false;
    expect((await handle(request())).status).toBe(200);
  });
});
