import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, orderBody } from './helpers/fleet-fixtures.js';
import { type TestCloud, startTestCloud } from './helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';
import { inlineSchemaRefs } from '../helpers/openapi-refs.js';

const MARKETPLACE_OPS: [string, string][] = [
  ['PUT', '/api/v4/auth/delivery/smartorder/create'],
  ['PUT', '/api/v4/auth/delivery/order/create'],
  ['PUT', '/api/v4/auth/delivery/order/update'],
  ['PUT', '/api/v4/auth/delivery/order/place/cancel'],
  ['POST', '/api/v4/auth/delivery/order/extension'],
  ['POST', '/api/v4/auth/delivery/order/detail'],
  ['POST', '/api/v4/auth/postamat/capacity'],
  ['GET', '/api/v4/auth/postamat/available'],
  ['GET', '/api/v4/auth/postamat/get-by-id?postamatId=1'],
];
const COURIER_OP = '/api/v1/auth/couriers/courier-with-route';

describe.each(testEngines())('authentication and tenancy on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine);
  });
  afterAll(async () => tc.stop());

  const bodyFor = (method: string) => (method === 'GET' ? undefined : {});

  it('answers 401 with code 1 for a missing or wrong key on every operation', async () => {
    for (const [method, path] of MARKETPLACE_OPS) {
      for (const key of [undefined, 'wrong-key', KEYS.partner, KEYS.operator]) {
        const res = await tc.call(method, path, { ...(key !== undefined ? { key } : {}), body: bodyFor(method) });
        expect(res.status, `${method} ${path} key=${key}`).toBe(401);
        // Another kind's key is "not accepted" like an unknown one: nothing tells that it exists.
        const message = key === undefined ? 'Ошибка авторизации: нет ключа в заголовке X-Service-Api-Key' : 'Ошибка авторизации: ключ в заголовке X-Service-Api-Key не принят';
        expect(res.body).toEqual({ message, resultCode: 1 });
      }
    }
    for (const partnerKey of [undefined, 'wrong-key', KEYS.shopA]) {
      const res = await tc.call('PUT', COURIER_OP, { ...(partnerKey !== undefined ? { partnerKey } : {}), body: {} });
      expect(res.status).toBe(401);
      expect(res.body.resultCode).toBe(1);
    }
  });

  it('checks the key before the body: a bad body with a bad key is still 401', async () => {
    const res = await tc.call('PUT', MARKETPLACE_OPS[0]![1], { key: 'nope', rawBody: '{not json' });
    expect(res).toEqual({ status: 401, body: { message: 'Ошибка авторизации: ключ в заголовке X-Service-Api-Key не принят', resultCode: 1 } });
  });

  it('answers 401 with code 10 for an inactive marketplace and 11 for an inactive organization', async () => {
    for (const [method, path] of MARKETPLACE_OPS) {
      const off = await tc.call(method, path, { key: KEYS.shopOff, body: bodyFor(method) });
      expect(off.status).toBe(401);
      expect(off.body).toEqual({ message: 'Учетная запись маркетплейса не активна', resultCode: 10 });
      const org = await tc.call(method, path, { key: KEYS.shopOrgOff, body: bodyFor(method) });
      expect(org.status).toBe(401);
      expect(org.body).toEqual({ message: 'Marketplace organization not active', resultCode: 11 });
    }
  });

  it('stores keys only as SHA-256 hashes', async () => {
    const rows = await tc.db.db.selectFrom('api_keys').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(Object.values(KEYS)).not.toContain(row.key_hash);
    }
  });

  it('keeps marketplaces apart: another marketplace can neither see nor touch an order', async () => {
    const created = await tc.call('PUT', '/api/v4/auth/delivery/smartorder/create', { key: KEYS.shopA, body: orderBody('TEN-1') });
    expect(created.status).toBe(200);
    const asB = { key: KEYS.shopB };
    expect((await tc.call('PUT', '/api/v4/auth/delivery/order/update', { ...asB, body: { externalId: 'TEN-1', parcels: [{ barcode: 'TEN-1-P1' }] } })).body.resultCode).toBe(205);
    expect((await tc.call('PUT', '/api/v4/auth/delivery/order/place/cancel', { ...asB, body: { extId: 'TEN-1', barcode: 'TEN-1-P1' } })).body.resultCode).toBe(205);
    expect((await tc.call('POST', '/api/v4/auth/delivery/order/extension', { ...asB, body: { extId: 'TEN-1' } })).body.resultCode).toBe(250);
    expect((await tc.call('POST', '/api/v4/auth/delivery/order/detail', { ...asB, body: { barcode: 'TEN-1-P1', courierExternalId: 'c' } })).body.resultCode).toBe(200);
    // The same externalId is free for another marketplace: its own order, not a conflict.
    const own = await tc.call('PUT', '/api/v4/auth/delivery/order/create', { ...asB, body: orderBody('TEN-1', { postamatId: 2 }) });
    expect(own.status).toBe(200);
    const orders = await tc.db.db.selectFrom('orders').select(['marketplace_id']).where('external_id', '=', 'TEN-1').orderBy('marketplace_id').execute();
    expect(orders.map((o) => o.marketplace_id)).toEqual(['shop-a', 'shop-b']);
  });

  it('serves health and the OpenAPI document with every operation', async () => {
    expect(await tc.call('GET', '/health')).toEqual({ status: 200, body: { status: 'ok', database: engine } });
    const doc = await tc.call('GET', '/docs/json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    const paths = Object.keys(doc.body.paths);
    for (const [, path] of MARKETPLACE_OPS) expect(paths).toContain(path.split('?')[0]);
    expect(paths).toContain(COURIER_OP);
    const create = inlineSchemaRefs(doc.body).paths['/api/v4/auth/delivery/smartorder/create'].put;
    expect(create.security).toEqual([{ serviceApiKey: [] }]);
    expect(create.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['externalId', 'postamatId', 'dateDelivery', 'parcels', 'clientInvoice', 'notification']),
    );
    const ui = await fetch(`${tc.cloud.url}/docs/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
  });

  it('answers unknown paths with the envelope', async () => {
    const res = await tc.call('GET', '/api/v4/auth/nothing', { key: KEYS.shopA });
    expect(res.status).toBe(404);
    expect(res.body.resultCode).toBe(3);
  });

  it('answers an internal failure with 500 and code 2 (last: it breaks the database)', async () => {
    await tc.db.db.schema.dropTable('parcels').execute();
    const res = await tc.call('PUT', '/api/v4/auth/delivery/smartorder/create', { key: KEYS.shopA, body: orderBody('BROKEN-1') });
    expect(res).toEqual({ status: 500, body: { message: 'Внутренняя ошибка сервера', resultCode: 2 } });
  });
});
