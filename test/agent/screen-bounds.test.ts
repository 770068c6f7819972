/**
 * The locker screen's bounds, through its real server: a body over `screen.maxBodyBytes` is
 * refused (413) before it is read, connections beyond `screen.maxConnections` are closed at once,
 * and in both cases the kiosk keeps serving: a courier signs in afterwards as if nothing happened.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { NOON, cell, grant, lockerConfig } from './fixtures.js';
import { startHarness, type Harness } from './harness.js';

const MAX_CONNECTIONS = 4;

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ config: { screen: { port: 0, maxConnections: MAX_CONNECTIONS, maxBodyBytes: 4_096 } } });
  h.send({ type: 'locker.config', config: lockerConfig([cell(1, 1, 'S')]) }, { type: 'courier.grant', grant: grant('g1', '111111', NOON + 3_600_000) });
});

afterAll(() => h?.stop());

/** A keep-alive connection that has had one answer (the server counts it until it is closed), or null when refused. */
function heldConnection(url: URL): Promise<Socket | null> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.once('error', () => resolve(null));
    socket.once('close', () => resolve(null));
    socket.once('data', () => resolve(socket));
    socket.write(`GET /api/state HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n\r\n`);
  });
}

/** What one more connection gets: the bytes it is answered before the server closes it. */
function oneMore(url: URL): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const socket = connect(Number(url.port), url.hostname);
    socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(got));
    socket.write(`GET /api/state HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`);
  });
}

async function courierSignsIn(): Promise<void> {
  await h.post('/api/home');
  await h.post('/api/choose', { kind: 'courier' });
  const state = await h.post('/api/code', { kind: 'courier', code: '111111' });
  expect(state.view.screen).toBe('courier');
  await h.post('/api/home');
}

describe('the locker screen under a greedy client', () => {
  it('refuses a body over screen.maxBodyBytes with 413, and serves the courier after', async () => {
    const res = await h.postRaw('/api/scan', { barcode: 'x'.repeat(8_192) });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'bad_request' });
    await courierSignsIn();
  });

  it('closes connections beyond screen.maxConnections at once, and serves again once they are released', async () => {
    const url = new URL(h.agent.screenUrl);
    // The test's own HTTP client keeps connections too: hold new ones until one is refused.
    const held: Socket[] = [];
    for (let s = await heldConnection(url); s; s = await heldConnection(url)) held.push(s);
    expect(held.length).toBeGreaterThan(0);
    expect(held.length).toBeLessThanOrEqual(MAX_CONNECTIONS);
    expect(await oneMore(url)).toBe('');
    for (const s of held) s.destroy();
    await eventually(async () => (await oneMore(url)).startsWith('HTTP/1.1 200'), 'the screen answering again');
    await courierSignsIn();
  });
});
