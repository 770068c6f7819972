/**
 * Text that is not valid Unicode (lone surrogates, sent as JSON escapes or as raw bytes that are
 * not UTF-8) and control characters are code 3 in every string of every operation and change
 * nothing; valid text of any script, astral characters included, is stored exactly as sent.
 * Through HTTP, on SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { KEYS, orderBody } from '../cloud/helpers/fleet-fixtures.js';
import { type Answer, type TestCloud, startTestCloud } from '../cloud/helpers/test-cloud.js';
import { replaced, stringPlaces, urlOf } from './operations.js';

const UPDATE = '/api/v4/auth/delivery/order/update';
const SMART = '/api/v4/auth/delivery/smartorder/create';

/** JSON escapes as they appear in a raw body, with what they are. */
const ODD_ESCAPES: [string, string][] = [
  ['lone high surrogate', 'AB\\ud800'],
  ['lone low surrogate', '\\udc00AB'],
  ['surrogates in the wrong order', 'A\\udc00\\ud800B'],
  ['NUL', 'A\\u0000B'],
  ['BEL', 'A\\u0007B'],
  ['ESC', 'A\\u001bB'],
  ['DEL', 'A\\u007fB'],
  ['C1 control (NEL)', 'A\\u0085B'],
];
/** The same in a URL: a surrogate has no UTF-8 form (CESU bytes), NUL and ESC percent-encoded. */
const ODD_URL_VALUES: [string, string][] = [
  ['encoded surrogate', 'A%ED%A0%80B'],
  ['not UTF-8', 'A%FFB'],
  ['NUL', 'A%00B'],
  ['ESC', 'A%1BB'],
];

function expectCode3(res: Answer, what: string): void {
  expect(res.status, what).toBe(400);
  expect(Object.keys(res.body as object).sort(), what).toEqual(['message', 'resultCode']);
  expect(res.body.resultCode, what).toBe(3);
}

const PLACEHOLDER = '\u2063odd\u2063';

describe.each(testEngines())('odd text on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine);
  });
  afterAll(async () => tc?.stop());

  async function counts(): Promise<number[]> {
    const n = async (table: 'orders' | 'parcels' | 'couriers' | 'route_sheets') =>
      Number((await tc.db.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    return [await n('orders'), await n('parcels'), await n('couriers'), await n('route_sheets')];
  }

  it('refuses lone surrogates and control characters in every string of every operation with code 3', async () => {
    // One order to update, cancel, extend and look up, so that only the odd text is wrong.
    expect((await tc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('S-1', { parcels: [{ barcode: 'S-1-P1', additionalBarcodes: ['S-1-A1'] }] }) })).status).toBe(200);
    const before = await counts();
    let checked = 0;
    for (const place of stringPlaces()) {
      if (place.label.endsWith('unknownKey')) continue;
      const { op } = place;
      if (place.body) {
        const json = JSON.stringify(replaced(op.body, place.body, PLACEHOLDER));
        for (const [what, escaped] of ODD_ESCAPES) {
          const rawBody = json.replace(PLACEHOLDER, escaped);
          expectCode3(await tc.call(op.method, urlOf(op), { ...op.auth, rawBody }), `${place.label}: ${what}`);
          checked++;
        }
      } else {
        for (const [what, encoded] of ODD_URL_VALUES) {
          const url =
            place.query !== undefined
              ? urlOf(op, { rawQuery: Object.entries({ ...op.query, [place.query]: PLACEHOLDER }).map(([k, v]) => `${k}=${v}`).join('&') })
              : urlOf(op, { params: { [place.param!]: PLACEHOLDER } });
          const res = await tc.call(op.method, url.replace(encodeURIComponent(PLACEHOLDER), encoded).replace(PLACEHOLDER, encoded), { ...op.auth, body: op.body });
          expectCode3(res, `${place.label}: ${what}`);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
    expect(await counts()).toEqual(before);
  });

  it('order/update with a lone surrogate in a barcode is code 3 every time, never 500', async () => {
    await tc.reset();
    expect((await tc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('U-1') })).status).toBe(200);
    const rawBody = JSON.stringify({ externalId: 'U-1', parcels: [{ barcode: PLACEHOLDER }] }).replace(PLACEHOLDER, 'AB\\ud800');
    for (let i = 0; i < 3; i++) expectCode3(await tc.call('PUT', UPDATE, { key: KEYS.shopA, rawBody }), `call ${i + 1}`);
    const parcels = await tc.db.db.selectFrom('parcels').select('barcode').execute();
    expect(parcels.map((p) => p.barcode)).toEqual(['U-1-P1']);
  });

  it('refuses bodies that are not UTF-8, and escaped surrogates inside otherwise valid JSON', async () => {
    const json = Buffer.from(JSON.stringify(orderBody('B-1', { parcels: [{ barcode: PLACEHOLDER }] })));
    const at = json.indexOf(Buffer.from(PLACEHOLDER));
    for (const [what, bytes] of [
      ['0xFF', [0xff]],
      ['a lone continuation byte', [0x80]],
      ['a surrogate in CESU-8', [0xed, 0xa0, 0x80]],
      ['an overlong slash', [0xc0, 0xaf]],
      ['a truncated sequence', [0xe2, 0x82]],
    ] as const) {
      const body = Buffer.concat([json.subarray(0, at), Buffer.from(bytes), json.subarray(at + Buffer.byteLength(PLACEHOLDER))]);
      const res = await fetch(`${tc.cloud.url}${SMART}`, { method: 'PUT', headers: { 'X-Service-Api-Key': KEYS.shopA, 'Content-Type': 'application/json' }, body });
      expectCode3({ status: res.status, body: await res.json() }, what);
    }
    expect(await tc.db.db.selectFrom('orders').select('id').where('external_id', '=', 'B-1').execute()).toEqual([]);
  });

  it('stores valid text of any script exactly as sent, and finds it again by it', async () => {
    await tc.reset();
    const barcode = 'Ш-📦-e\u0301-\u200d-\u{10FFFD}';
    const added = 'ПОСЫЛКА-２-🇷🇺';
    const name = 'Чайник\t"2 л"\nбелый 😀 \\ / \u2028';
    const number = '№ 7/12 — 🧾';
    const body = orderBody('T-😀', {
      number,
      parcels: [{ barcode, additionalBarcodes: ['доп-1'] }],
      clientInvoice: {
        cart: { items: [{ count: 1, barcode, name, subjectType: 1, price: 100, totalSum: 100, taxId: 1, taxSystemId: 1 }], prePaymentSum: 100 },
      },
    });
    expect((await tc.call('PUT', SMART, { key: KEYS.shopA, body })).status).toBe(200);
    // The same barcode again plus a new one: the stored text must match the sent one to be found.
    for (let i = 0; i < 2; i++) {
      const res = await tc.call('PUT', UPDATE, { key: KEYS.shopA, body: { externalId: 'T-😀', parcels: [{ barcode }, { barcode: added }] } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const order = await tc.db.db.selectFrom('orders').selectAll().where('external_id', '=', 'T-😀').executeTakeFirstOrThrow();
    expect(order.number).toBe(number);
    expect((JSON.parse(order.client_invoice) as { cart: { items: { name: string }[] } }).cart.items[0]!.name).toBe(name);
    const parcels = await tc.db.db.selectFrom('parcels').select(['barcode', 'position']).where('order_id', '=', order.id).orderBy('position').execute();
    expect(parcels.map((p) => p.barcode)).toEqual([barcode, added]);
    // Cancelling by the barcode finds the parcel too.
    const cancel = await tc.call('PUT', '/api/v4/auth/delivery/order/place/cancel', { key: KEYS.shopA, body: { extId: 'T-😀', barcode: added } });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
  });
});
