import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, orderBody } from './helpers/fleet-fixtures.js';
import { type Answer, type TestCloud, startTestCloud } from './helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';
const PLAIN = '/api/v4/auth/delivery/order/create';

function without(body: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...body };
  delete copy[key];
  return copy;
}

function expectCode3(res: Answer, what: string): void {
  expect(res.status, what).toBe(400);
  expect(res.body.resultCode, what).toBe(3);
  expect(res.body.message, what).toMatch(/^Неверный формат запроса/);
}

describe.each(testEngines())('request validation on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine);
  });
  afterAll(async () => tc.stop());

  const good = orderBody('V-1');
  const parcel = (dimension: unknown) => [{ barcode: 'V-1-P1', dimension }];
  const badCreates: [string, { body?: unknown; rawBody?: string; contentType?: string | null }][] = [
    ['invalid JSON', { rawBody: '{"externalId": "V-1",' }],
    ['empty JSON body', { rawBody: '' }],
    ['text/plain', { rawBody: JSON.stringify(good), contentType: 'text/plain' }],
    ['no Content-Type', { rawBody: JSON.stringify(good), contentType: null }],
    ['form content', { rawBody: 'externalId=V-1', contentType: 'application/x-www-form-urlencoded' }],
    ['array body', { body: [good] }],
    ['postamatId as text', { body: { ...good, postamatId: '1' } }],
    ['postamatId fractional', { body: { ...good, postamatId: 1.5 } }],
    ['parcels as object', { body: { ...good, parcels: { barcode: 'x' } } }],
    ['no parcels', { body: { ...good, parcels: [] } }],
    ...['externalId', 'postamatId', 'dateDelivery', 'parcels', 'clientInvoice', 'notification'].map(
      (k): [string, { body: unknown }] => [`missing ${k}`, { body: without(good, k) }],
    ),
    ['empty externalId', { body: { ...good, externalId: '' } }],
    ['blank externalId', { body: { ...good, externalId: '   ' } }],
    ['empty barcode', { body: { ...good, parcels: [{ barcode: '' }] } }],
    ['duplicate barcode', { body: { ...good, parcels: [{ barcode: 'D' }, { barcode: 'D' }] } }],
    ['dimension 0', { body: { ...good, parcels: parcel({ height: 0 }) } }],
    ['dimension negative', { body: { ...good, parcels: parcel({ width: -5 }) } }],
    ['dimension fractional', { body: { ...good, parcels: parcel({ length: 10.5 }) } }],
    ['dimension as text', { body: { ...good, parcels: parcel({ length: '10' }) } }],
    ['phone without +7', { body: { ...good, notification: { emails: [], phones: ['89161234567'] } } }],
    ['phone too short', { body: { ...good, notification: { emails: [], phones: ['+7916123456'] } } }],
    ['phone with spaces', { body: { ...good, notification: { emails: [], phones: ['+7 916 123 45 67'] } } }],
    ['bad e-mail', { body: { ...good, notification: { emails: ['not-an-email'], phones: [] } } }],
    ['date not in the calendar', { body: { ...good, dateDelivery: '2030-02-30' } }],
    ['date in another format', { body: { ...good, dateDelivery: '05.03.2030' } }],
    ['date with time', { body: { ...good, dateDelivery: '2030-03-05T10:00:00Z' } }],
    ['date in the past', { body: { ...good, dateDelivery: '2030-03-03' } }],
    ['unknown locker', { body: { ...good, postamatId: 999 } }],
    ['inactive locker', { body: { ...good, postamatId: 4 } }],
    ['item without name', { body: { ...good, clientInvoice: { cart: { items: [{ count: 1, subjectType: 1, price: 1, totalSum: 1, taxId: 1, taxSystemId: 1 }], prePaymentSum: 1 } } } }],
    ['negative price', { body: { ...good, clientInvoice: { cart: { items: [{ count: 1, name: 'x', subjectType: 1, price: -1, totalSum: 1, taxId: 1, taxSystemId: 1 }], prePaymentSum: 1 } } } }],
  ];

  it.each(badCreates)('create: %s -> 400 code 3 and nothing stored', async (what, req) => {
    for (const path of [SMART, PLAIN]) {
      expectCode3(await tc.call('PUT', path, { key: KEYS.shopA, ...req }), `${path} ${what}`);
    }
  });

  it('refuses malformed bodies of the other operations with code 3', async () => {
    const cases: [string, string, unknown][] = [
      ['PUT', '/api/v4/auth/delivery/order/update', { externalId: '', parcels: [{ barcode: 'x' }] }],
      ['PUT', '/api/v4/auth/delivery/order/update', { externalId: 'V-1' }],
      ['PUT', '/api/v4/auth/delivery/order/place/cancel', { extId: 'V-1' }],
      ['PUT', '/api/v4/auth/delivery/order/place/cancel', { extId: '', barcode: 'x' }],
      ['POST', '/api/v4/auth/delivery/order/extension', {}],
      ['POST', '/api/v4/auth/delivery/order/extension', { extId: '' }],
      ['POST', '/api/v4/auth/delivery/order/detail', { barcode: 'x' }],
      ['POST', '/api/v4/auth/delivery/order/detail', { courierExternalId: 'c' }],
      ['POST', '/api/v4/auth/postamat/capacity', { postamatId: 1, deliveryDate: '2030-13-01', parcelSize: {} }],
      ['POST', '/api/v4/auth/postamat/capacity', { postamatId: 1, deliveryDate: '2030-03-05' }],
      ['POST', '/api/v4/auth/postamat/capacity', { postamatId: 1, deliveryDate: '2030-03-05', parcelSize: { height: 0 } }],
      ['POST', '/api/v4/auth/postamat/capacity', { postamatId: 999, deliveryDate: '2030-03-05', parcelSize: {} }],
    ];
    for (const [method, path, body] of cases) expectCode3(await tc.call(method, path, { key: KEYS.shopA, body }), `${path} ${JSON.stringify(body)}`);
    for (const query of ['scanner=yes', 'schedule=1']) {
      expectCode3(await tc.call('GET', `/api/v4/auth/postamat/available?${query}`, { key: KEYS.shopA }), query);
    }
    for (const query of ['', 'postamatId=abc', 'postamatId=0', 'postamatId=1&cellsType=2', 'postamatId=999']) {
      expectCode3(await tc.call('GET', `/api/v4/auth/postamat/get-by-id?${query}`, { key: KEYS.shopA }), query);
    }
  });

  it('refuses malformed route sheets with code 3', async () => {
    const good = {
      courier: { externalId: 'c-1', email: 'c1@example.ru', phone: '+79990000001' },
      route: { carNumber: 'A123BC77', date: '2030-03-04', externalId: 'r-1', postamatIds: [1] },
    };
    const bad: unknown[] = [
      { ...good, courier: { ...good.courier, email: 'nope' } },
      { ...good, courier: { ...good.courier, phone: '+7999000000' } },
      { ...good, courier: { ...good.courier, inn: '12' } },
      { ...good, route: { ...good.route, date: '2030-03-32' } },
      { ...good, route: { ...good.route, postamatIds: ['x'] } },
      { ...good, route: { ...good.route, postamatIds: [] } },
      { ...good, route: { ...good.route, externalId: '' } },
      { ...good, route: { ...good.route, date: '2030-03-03' } },
      { courier: good.courier },
    ];
    for (const body of bad) expectCode3(await tc.call('PUT', '/api/v1/auth/couriers/courier-with-route', { partnerKey: KEYS.partner, body }), JSON.stringify(body));
    expectCode3(await tc.call('PUT', '/api/v1/auth/couriers/courier-with-route', { partnerKey: KEYS.partner, rawBody: '{' }), 'invalid JSON');
  });

  it('stored nothing for any of the refused requests', async () => {
    const count = async (table: 'orders' | 'parcels' | 'couriers' | 'route_sheets' | 'notifications') =>
      Number((await tc.db.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expect(await count('orders')).toBe(0);
    expect(await count('parcels')).toBe(0);
    expect(await count('couriers')).toBe(0);
    expect(await count('route_sheets')).toBe(0);
    expect(await count('notifications')).toBe(0);
    const commands = await tc.db.db.selectFrom('locker_commands').select('type').distinct().execute();
    expect(commands.map((c) => c.type)).toEqual(['locker.config']);
  });
});
