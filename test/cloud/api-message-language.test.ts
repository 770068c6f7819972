/**
 * Every refusal a person reads is in one language: by default the spec's Russian, with no English
 * words beyond identifiers and quoted values; with `Accept-Language: en` English without a Cyrillic
 * letter. Driven over real HTTP through a representative set of failing requests: schema
 * violations of several kinds, malformed bodies, unknown paths and methods, unknown lockers and
 * orders, dates in the past, bad Idempotency-Keys, the 401 variants and code 10, the rate limit,
 * and the sandbox's refusals (a production key, a locker not run by this process, a wrong state).
 *
 * "No English words" is defined on what remains of the message once quoted values ("...", '...',
 * «...», `...`) are removed and every identifier is dropped: a token with a digit, a dot, a slash,
 * a hyphen, an underscore or another sign; a token with a capital letter after its first (camelCase,
 * abbreviations: GET, JSON, UTF); or a name the API document gives (a property, parameter, header
 * or enum value of docs/openapi.json). No word of three or more Latin letters may remain.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetInput } from '../../cloud/src/fleet/fleet-schema.js';
import { KEYS, orderBody, testFleet } from './helpers/fleet-fixtures.js';
import { type Answer, type TestCloud, startTestCloud } from './helpers/test-cloud.js';

const CREATE = '/api/v4/auth/delivery/smartorder/create';
const CAPACITY = '/api/v4/auth/postamat/capacity';
const AVAILABLE = '/api/v4/auth/postamat/available';
const EXTENSION = '/api/v4/auth/delivery/order/extension';
const SANDBOX_KEY = 'test-sandbox-key';
const LIMITED_KEY = 'test-limited-key';
const CYRILLIC = /[\u0400-\u04FF]/;
/** Codes whose text the spec gives in Russian (1, 2, 3, 10) or that the API answers in Russian (4). */
const RUSSIAN_CODES = new Set([1, 2, 3, 4, 10]);
const ENGLISH_START: Record<number, string> = { 1: 'Authorization error', 2: 'Internal server error', 3: 'Invalid request', 10: 'Marketplace account is not active' };

/** Every name docs/openapi.json gives: properties, parameters, headers, enum values. */
function apiNames(): Set<string> {
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if (o.properties && typeof o.properties === 'object') for (const k of Object.keys(o.properties)) names.add(k);
    if (typeof o.name === 'string' && typeof o.in === 'string') names.add(o.name);
    if (Array.isArray(o.enum)) for (const v of o.enum) if (typeof v === 'string') names.add(v);
    if (o.headers && typeof o.headers === 'object') for (const k of Object.keys(o.headers)) names.add(k);
    Object.values(o).forEach(walk);
  };
  walk(JSON.parse(readFileSync('docs/openapi.json', 'utf8')));
  return names;
}
const NAMES = apiNames();

/** The words of three or more Latin letters left once quoted values and identifiers are removed. */
function englishWords(message: string): string[] {
  const unquoted = message.replace(/"[^"]*"|'[^']*'|«[^»]*»|`[^`]*`/g, ' ');
  return unquoted
    .split(/[\s,;:()]+/)
    .filter((t) => t !== '')
    .filter((t) => !/[0-9._/\\+@#=?&[\]{}<>*-]/.test(t) && !/^.+[A-Z]/.test(t) && !NAMES.has(t))
    .filter((t) => /[A-Za-z]{3,}/.test(t));
}

const sha = (key: string): string => createHash('sha256').update(key).digest('hex');

/** The test fleet with a sandbox marketplace and locker (no process runs the locker here) and a marketplace allowed two requests a minute. */
function fleet(): FleetInput {
  const base = testFleet();
  return {
    ...base,
    lockers: [...base.lockers, { ...base.lockers[0]!, id: 901, name: 'Sandbox', sandbox: true, cells: [{ id: 1, width: 400, height: 400, board: 0, lock: 1 }] }],
    marketplaces: [
      ...base.marketplaces,
      { id: 'sbx', name: 'Sandbox shop', sandbox: true, apiKeySha256: [sha(SANDBOX_KEY)] },
      { id: 'limited', name: 'Limited', apiKeySha256: [sha(LIMITED_KEY)], rateLimits: { requests: { max: 2, windowSeconds: 3600 } } },
    ],
  };
}

let tc: TestCloud;
beforeAll(async () => {
  tc = await startTestCloud('sqlite', { fleet: fleet() });
  expect((await tc.call('PUT', CREATE, { key: KEYS.shopA, body: orderBody('LANG-NEW') })).status).toBe(200);
  expect((await tc.call('PUT', CREATE, { key: SANDBOX_KEY, body: orderBody('LANG-SBX', { postamatId: 901 }) })).status).toBe(200);
});
afterAll(async () => tc?.stop());

type Send = (headers: Record<string, string>) => Promise<Answer>;
const order = (overrides: Record<string, unknown>): Record<string, unknown> => orderBody('LANG-1', overrides);
/** A body sent as these bytes (the helper's string body would be re-encoded as UTF-8). */
async function bytes(path: string, body: Buffer, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${tc.cloud.url}${path}`, { method: 'PUT', headers: { ...headers, 'X-Service-Api-Key': KEYS.shopA, 'Content-Type': 'application/json' }, body });
  return { status: res.status, body: await res.json() };
}
const create = (body: unknown): Send => (headers) => tc.call('PUT', CREATE, { key: KEYS.shopA, body, headers });

/** Each refusal: how to send it and the result code it must get. Sent once per language. */
const REFUSALS: { name: string; code: number; send: Send }[] = [
  { name: 'a required field missing', code: 3, send: create({}) },
  { name: 'a field of the wrong type', code: 3, send: create(order({ postamatId: 'one' })) },
  { name: 'a string over its limit', code: 3, send: create(order({ externalId: 'x'.repeat(300) })) },
  { name: 'an empty identifier', code: 3, send: create(order({ externalId: '  ' })) },
  { name: 'a phone in the wrong format', code: 3, send: create(order({ notification: { emails: [], phones: ['12345'] } })) },
  { name: 'a date that is not a calendar date', code: 3, send: create(order({ dateDelivery: '2030-02-30' })) },
  { name: 'a barcode twice in one order', code: 3, send: create(order({ parcels: [{ barcode: 'B-1', dimension: { length: 1, width: 1, height: 1 } }, { barcode: 'B-1', dimension: { length: 1, width: 1, height: 1 } }] })) },
  { name: 'a number below its minimum', code: 3, send: create(order({ parcels: [{ barcode: 'B-2', dimension: { length: 0, width: 1, height: 1 } }] })) },
  { name: 'an empty list', code: 3, send: create(order({ parcels: [] })) },
  { name: 'neither postamatId nor postamatIds', code: 3, send: (headers) => tc.call('POST', CAPACITY, { key: KEYS.shopA, body: { deliveryDate: '2030-03-05', parcelSize: {} }, headers }) },
  { name: 'a value outside the enum', code: 3, send: (headers) => tc.call('GET', `${AVAILABLE}?scanner=maybe`, { key: KEYS.shopA, headers }) },
  { name: 'a body that is not JSON', code: 3, send: (headers) => tc.call('PUT', CREATE, { key: KEYS.shopA, rawBody: '{not json', headers }) },
  { name: 'an empty JSON body', code: 3, send: (headers) => tc.call('PUT', CREATE, { key: KEYS.shopA, rawBody: '', contentType: 'application/json', headers }) },
  { name: 'a body that is not UTF-8', code: 3, send: (headers) => bytes(CREATE, Buffer.from([0x7b, 0xff, 0x7d]), headers) },
  { name: 'a Content-Type other than JSON', code: 3, send: (headers) => tc.call('PUT', CREATE, { key: KEYS.shopA, rawBody: 'a=b', contentType: 'text/plain', headers }) },
  { name: 'a query that is not percent-encoded UTF-8', code: 3, send: (headers) => tc.call('GET', `${AVAILABLE}?scanner=%ff`, { key: KEYS.shopA, headers }) },
  { name: 'an unknown path', code: 3, send: (headers) => tc.call('GET', '/api/v4/no-such-path', { headers }) },
  { name: 'a path with another method', code: 3, send: (headers) => tc.call('GET', CREATE, { key: KEYS.shopA, headers }) },
  { name: 'an unknown locker', code: 3, send: create(order({ postamatId: 999 })) },
  { name: 'a delivery date in the past', code: 3, send: create(order({ dateDelivery: '2030-03-01' })) },
  { name: 'an externalId taken by other data', code: 3, send: create(orderBody('LANG-NEW', { number: 'other' })) },
  { name: 'a malformed Idempotency-Key', code: 3, send: (headers) => tc.call('PUT', CREATE, { key: KEYS.shopA, body: order({}), headers: { ...headers, 'Idempotency-Key': 'has spaces in it' } }) },
  { name: 'no key', code: 1, send: (headers) => tc.call('GET', AVAILABLE, { headers }) },
  { name: 'a key not accepted', code: 1, send: (headers) => tc.call('GET', AVAILABLE, { key: 'no-such-key', headers }) },
  { name: 'a key in the wrong header', code: 1, send: (headers) => tc.call('GET', AVAILABLE, { partnerKey: KEYS.shopA, headers }) },
  { name: 'an operator route without its key', code: 1, send: (headers) => tc.call('GET', '/operator/orders', { headers }) },
  { name: 'an inactive marketplace', code: 10, send: (headers) => tc.call('GET', AVAILABLE, { key: KEYS.shopOff, headers }) },
  { name: 'an operator asking for an unknown order', code: 3, send: (headers) => tc.call('GET', '/operator/orders/no-such-order', { operatorKey: KEYS.operator, headers }) },
  { name: 'a production key on a sandbox operation', code: 3, send: (headers) => tc.call('POST', '/api/v4/sandbox/orders/courier-load', { key: KEYS.shopA, body: { externalId: 'LANG-NEW' }, headers }) },
  { name: 'a sandbox locker this process does not run', code: 2, send: (headers) => tc.call('POST', '/api/v4/sandbox/orders/courier-load', { key: SANDBOX_KEY, body: { externalId: 'LANG-SBX' }, headers }) },
  // Codes beyond 1, 2, 3, 4 and 10 keep the spec's English wording in both languages.
  { name: 'a sandbox play in the wrong state', code: 206, send: (headers) => tc.call('POST', '/api/v4/sandbox/orders/storage-expiry', { key: SANDBOX_KEY, body: { externalId: 'LANG-SBX' }, headers }) },
  { name: 'a sandbox play of an unknown order', code: 200, send: (headers) => tc.call('POST', '/api/v4/sandbox/orders/courier-load', { key: SANDBOX_KEY, body: { externalId: 'LANG-NONE' }, headers }) },
  { name: 'an extension in the wrong state', code: 252, send: (headers) => tc.call('POST', EXTENSION, { key: KEYS.shopA, body: { extId: 'LANG-NEW' }, headers }) },
];

describe('the language of refusals', () => {
  it('finds English words outside identifiers and quoted values, and only those', () => {
    expect(englishWords('Неверный формат запроса: тело запроса, поле parcels.0.barcode: штрихкод "B 1" встречается дважды')).toEqual([]);
    expect(englishWords('Ошибка авторизации: нет ключа в заголовке X-Service-Api-Key')).toEqual([]);
    expect(englishWords('Неверный формат запроса: postamatId 999 не найден; нет операции GET /api/v4/x')).toEqual([]);
    expect(englishWords('Неверный формат запроса: body.externalId: must not be empty')).toEqual(['must', 'not', 'empty']);
    expect(englishWords('Неверный формат запроса: Unexpected token')).toEqual(['Unexpected', 'token']);
  });

  for (const { name, code, send } of REFUSALS) {
    it(`${name}: code ${code}, Russian by default, English when asked`, async () => {
      const ru = await send({});
      const en = await send({ 'Accept-Language': 'en' });
      const context = JSON.stringify({ ru: ru.body, en: en.body });
      expect(ru.body, context).toMatchObject({ resultCode: code });
      expect(en.body, context).toMatchObject({ resultCode: code });
      expect(en.status, context).toBe(ru.status);
      const ruMessage = (ru.body as { message: string }).message;
      const enMessage = (en.body as { message: string }).message;
      expect(enMessage, context).not.toMatch(CYRILLIC);
      if (RUSSIAN_CODES.has(code)) {
        expect(englishWords(ruMessage), context).toEqual([]);
        expect(ruMessage, context).toMatch(CYRILLIC);
        if (ENGLISH_START[code]) expect(enMessage.startsWith(ENGLISH_START[code]), context).toBe(true);
      } else {
        expect(ruMessage, context).toBe(enMessage);
      }
    });
  }

  it('the rate limit (code 4): Russian by default, English when asked', async () => {
    const call = (headers: Record<string, string>) => tc.call('GET', AVAILABLE, { key: LIMITED_KEY, headers });
    await call({});
    await call({});
    const ru = await call({});
    const en = await call({ 'Accept-Language': 'en' });
    expect(ru).toMatchObject({ status: 429, body: { resultCode: 4 } });
    expect(en).toMatchObject({ status: 429, body: { resultCode: 4 } });
    expect(englishWords((ru.body as { message: string }).message)).toEqual([]);
    expect((en.body as { message: string }).message).not.toMatch(CYRILLIC);
  });
});
