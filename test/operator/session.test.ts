/** Console sign-in: the cookie and its flags, who am I, CSRF, viewers, idle expiry, sign-out, wrong keys. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS } from '../cloud/helpers/fleet-fixtures.js';
import { type TestCloud, startTestCloud } from '../cloud/helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';
import { ConsoleClient, consoleFleet, VIEWER_KEY } from './console-client.js';

const FLAGS = '/operator/postamats/1/cells/1/flags';

describe.each(testEngines())('operator console session on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine, { fleet: consoleFleet(), config: { operatorSessionIdleMinutes: 60 } });
  });
  afterAll(async () => tc.stop());

  it('signs in with the key: an HttpOnly SameSite=Strict cookie, the role and a CSRF token', async () => {
    const c = new ConsoleClient(tc.cloud.url);
    const answer = await c.signIn(KEYS.operator);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ operator: 'ops', role: 'operator', csrfToken: expect.any(String), expiresAt: '2030-03-04T10:00:00.000Z' });
    const cookie = answer.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^operator_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\//);
    expect(cookie).not.toContain('Secure'); // plain http here
    // The token is stored hashed only.
    const token = c.cookie!.split('=')[1]!;
    const rows = await tc.db.db.selectFrom('operator_sessions').selectAll().execute();
    expect(rows.some((r) => r.token_hash === token)).toBe(false);

    const me = await c.call('GET', '/operator/session');
    expect(me).toMatchObject({ status: 200, body: { operator: 'ops', role: 'operator', csrfToken: answer.body.csrfToken } });
    expect((await c.call('GET', '/operator/alerts')).status).toBe(200);
  });

  it('refuses a wrong key with 401 and the envelope', async () => {
    const answer = await new ConsoleClient(tc.cloud.url).signIn('not-a-key');
    expect(answer).toMatchObject({ status: 401, body: { resultCode: 1, message: expect.any(String) } });
    expect(answer.headers.get('set-cookie')).toBeNull();
  });

  it('wants the CSRF token on every request with the cookie that changes something', async () => {
    const c = new ConsoleClient(tc.cloud.url);
    await c.signIn(KEYS.operator);
    expect(await c.call('PUT', FLAGS, { body: { dirty: true }, csrf: null })).toMatchObject({ status: 403, body: { resultCode: 5 } });
    expect(await c.call('PUT', FLAGS, { body: { dirty: true }, csrf: 'wrong' })).toMatchObject({ status: 403, body: { resultCode: 5 } });
    expect(await c.call('PUT', FLAGS, { body: { dirty: false } })).toMatchObject({ status: 200 });
    // The key header needs no CSRF token (no ambient credential).
    expect((await tc.call('PUT', FLAGS, { operatorKey: KEYS.operator, body: { dirty: false } })).status).toBe(200);
  });

  it('lets a viewer read but not act, by session or by key', async () => {
    const c = new ConsoleClient(tc.cloud.url);
    expect((await c.signIn(VIEWER_KEY)).body).toMatchObject({ operator: 'watcher', role: 'viewer' });
    expect((await c.call('GET', '/operator/alerts')).status).toBe(200);
    expect(await c.call('PUT', FLAGS, { body: { dirty: true } })).toMatchObject({ status: 403, body: { resultCode: 5 } });
    expect(await tc.call('PUT', FLAGS, { operatorKey: VIEWER_KEY, body: { dirty: true } })).toMatchObject({ status: 403, body: { resultCode: 5 } });
    expect(await tc.call('POST', '/operator/fleet/reload', { operatorKey: VIEWER_KEY })).toMatchObject({ status: 403 });
    expect((await c.call('DELETE', '/operator/session')).status).toBe(200);
  });

  it('ends on sign-out and after the idle time', async () => {
    const c = new ConsoleClient(tc.cloud.url);
    await c.signIn(KEYS.operator);
    const out = await c.call('DELETE', '/operator/session');
    expect(out).toMatchObject({ status: 200, body: { signedOut: true } });
    expect(out.headers.get('set-cookie')).toMatch(/^operator_session=; Max-Age=0/);
    expect(await c.call('GET', '/operator/session')).toMatchObject({ status: 401, body: { resultCode: 1 } });

    const idle = new ConsoleClient(tc.cloud.url);
    await idle.signIn(KEYS.operator);
    tc.clock.advance(59 * 60_000);
    expect((await idle.call('GET', '/operator/session')).status).toBe(200); // used: the expiry moves on
    tc.clock.advance(59 * 60_000);
    expect((await idle.call('GET', '/operator/session')).status).toBe(200);
    tc.clock.advance(61 * 60_000);
    expect((await idle.call('GET', '/operator/session')).status).toBe(401);
  });

  it('locks an address out after repeated wrong keys (429, code 4), a right key too', async () => {
    const c = new ConsoleClient(tc.cloud.url);
    tc.clock.advance(3_600_000); // a fresh counting window
    for (let i = 0; i < 10; i++) expect((await c.signIn(`wrong-${i}`)).status).toBe(401);
    const locked = await c.signIn(KEYS.operator);
    expect(locked).toMatchObject({ status: 429, body: { resultCode: 4 } });
    expect(locked.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe.each(testEngines())('operator console sessions per operator on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine, { fleet: consoleFleet(), config: { operatorSessionsMax: 2 } });
  });
  afterAll(async () => tc.stop());

  it('ends the oldest session of an operator signing in beyond OPERATOR_SESSIONS_MAX', async () => {
    const clients = [];
    for (let i = 0; i < 3; i++) {
      const c = new ConsoleClient(tc.cloud.url);
      await c.signIn(KEYS.operator);
      clients.push(c);
      tc.clock.advance(1000);
    }
    const statuses = await Promise.all(clients.map(async (c) => (await c.call('GET', '/operator/session')).status));
    expect(statuses).toEqual([401, 200, 200]);
  });
});
