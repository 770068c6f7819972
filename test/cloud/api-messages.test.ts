/**
 * Messages a person can act on, over real HTTP: Accept-Language en gives English envelopes, the
 * default stays the spec's Russian, a message is in one language, and a 401 says whether the key
 * header was missing, the key not accepted, or the key sent in another kind's header, without
 * telling whether a key exists for someone else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageLanguage } from '../../cloud/src/http/message-language.js';
import { KEYS } from './helpers/fleet-fixtures.js';
import { type TestCloud, startTestCloud } from './helpers/test-cloud.js';

const AVAILABLE = '/api/v4/auth/postamat/available';
const CREATE = '/api/v4/auth/delivery/smartorder/create';
const COURIER_OP = '/api/v1/auth/couriers/courier-with-route';
const EN = { 'Accept-Language': 'en-GB,en;q=0.9,ru;q=0.5' };
const CYRILLIC = /[\u0400-\u04FF]/;

let tc: TestCloud;
beforeAll(async () => {
  tc = await startTestCloud('sqlite');
});
afterAll(async () => tc.stop());

describe('messages', () => {
  it('picks the language from Accept-Language: English only when preferred to Russian', () => {
    expect(messageLanguage(undefined)).toBe('ru');
    expect(messageLanguage('en')).toBe('en');
    expect(messageLanguage('en-US,en;q=0.9')).toBe('en');
    expect(messageLanguage('ru-RU,ru;q=0.9,en;q=0.8')).toBe('ru');
    expect(messageLanguage('ru;q=0.5, en;q=0.7')).toBe('en');
    expect(messageLanguage('de,fr')).toBe('ru');
    expect(messageLanguage('en;q=0')).toBe('ru');
  });

  it('401: missing, not accepted, or in the wrong header; in English when asked, and never which key exists', async () => {
    const missing = await tc.call('GET', AVAILABLE, { headers: EN });
    expect(missing).toMatchObject({ status: 401, body: { resultCode: 1, message: 'Authorization error: no key in the X-Service-Api-Key header' } });
    const unknown = await tc.call('GET', AVAILABLE, { key: 'no-such-key', headers: EN });
    const otherKind = await tc.call('GET', AVAILABLE, { key: KEYS.partner, headers: EN });
    expect(unknown.body).toEqual({ resultCode: 1, message: 'Authorization error: the key in the X-Service-Api-Key header is not accepted' });
    expect(otherKind.body).toEqual(unknown.body);
    const wrongHeader = await tc.call('GET', AVAILABLE, { partnerKey: KEYS.shopA, headers: EN });
    expect(wrongHeader.body).toEqual({ resultCode: 1, message: 'Authorization error: the key was sent in the Partner-Api-Key header; this operation takes X-Service-Api-Key' });
    // The wrong-header answer is the same for any value: the key sent there is not looked at.
    expect((await tc.call('GET', AVAILABLE, { partnerKey: 'anything', headers: EN })).body).toEqual(wrongHeader.body);
    const courierWithShopKey = await tc.call('PUT', COURIER_OP, { key: KEYS.shopA, body: {} });
    expect(courierWithShopKey.body).toEqual({ resultCode: 1, message: 'Ошибка авторизации: ключ передан в заголовке X-Service-Api-Key, а эта операция принимает Partner-Api-Key' });
    for (const answer of [missing, unknown, otherKind, wrongHeader]) expect(answer.body.message).not.toMatch(CYRILLIC);
  });

  it('code 3 in English when asked, the spec\'s Russian by default, with Content-Language', async () => {
    const en = await tc.call('PUT', CREATE, { key: KEYS.shopA, rawBody: '{not json', headers: EN });
    expect(en.status).toBe(400);
    expect(en.body.resultCode).toBe(3);
    expect(en.body.message).toMatch(/^Invalid request: /);
    expect(en.body.message).not.toMatch(CYRILLIC);
    const ru = await tc.call('PUT', CREATE, { key: KEYS.shopA, rawBody: '{not json' });
    expect(ru.body.message).toMatch(/^Неверный формат запроса: /);
    const res = await fetch(`${tc.cloud.url}${AVAILABLE}`, { headers: EN });
    expect(res.headers.get('content-language')).toBe('en');
    const unknownPath = await tc.call('GET', '/api/v4/no-such-path', { headers: EN });
    expect(unknownPath).toMatchObject({ status: 404, body: { resultCode: 3, message: 'Invalid request: no operation GET /api/v4/no-such-path' } });
  });

  it('code 10 in English when asked', async () => {
    const res = await tc.call('GET', AVAILABLE, { key: KEYS.shopOff, headers: EN });
    expect(res).toMatchObject({ status: 401, body: { resultCode: 10, message: 'Marketplace account is not active' } });
  });
});
