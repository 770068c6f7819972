/**
 * The cloud's HTTP connections are bounded (HTTP_MAX_CONNECTIONS): a caller holding every socket
 * the process allows gets its next connection closed at once, unanswered, and the API answers
 * again as soon as those sockets go; and per remote address (HTTP_MAX_CONNECTIONS_PER_ADDRESS):
 * one address holding its bound is refused the same way while another address is served. Through
 * real sockets against clouds from startCloud() (127.0.0.2 is a second loopback address).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { loadCloudSettings } from '../../cloud/src/settings.js';

const MAX = 16;
const PER_ADDRESS = 4;
const dir = mkdtempSync(join(tmpdir(), 'http-connections-'));
let cloud: RunningCloud;
let perAddress: RunningCloud;

const start = (env: Record<string, string>, file: string) =>
  startCloud(loadCloudSettings(env, { config: { port: 0, sqlitePath: join(dir, file), logLevel: 'silent' }, mqtt: { enabled: false } }));

beforeAll(async () => {
  cloud = await start({ HTTP_MAX_CONNECTIONS: String(MAX) }, 'cloud.sqlite');
  perAddress = await start({ HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS) }, 'per-address.sqlite');
});
afterAll(async () => {
  await cloud?.stop();
  await perAddress?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function open(from: RunningCloud = cloud, localAddress = '127.0.0.1'): Promise<Socket> {
  const { hostname, port } = new URL(from.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends a request on the socket and resolves with what came back before it closed (nothing if refused). */
function answerOf(socket: Socket): Promise<string> {
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.on('error', () => undefined);
  socket.write('GET /health HTTP/1.1\r\nHost: cloud\r\nConnection: close\r\n\r\n');
  return new Promise((resolve) => socket.once('close', () => resolve(Buffer.concat(received).toString())));
}

const end = (sockets: Socket[]) => Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.end(() => resolve()))));

describe('HTTP connections', () => {
  it('refuses a setting below its minimum, naming it', () => {
    expect(() => loadCloudSettings({ HTTP_MAX_CONNECTIONS: '3' })).toThrow(/HTTP_MAX_CONNECTIONS/);
    expect(() => loadCloudSettings({ HTTP_MAX_CONNECTIONS_PER_ADDRESS: '-1' })).toThrow(/HTTP_MAX_CONNECTIONS_PER_ADDRESS/);
    expect(loadCloudSettings({ HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0' }).config.httpMaxConnectionsPerAddress).toBe(0);
  });

  it('closes a connection beyond HTTP_MAX_CONNECTIONS_PER_ADDRESS at once while another address is served, and serves the first again when its sockets go', async () => {
    const held = await Promise.all(Array.from({ length: PER_ADDRESS }, () => open(perAddress)));
    try {
      expect(await answerOf(await open(perAddress))).toBe('');
      expect(await answerOf(await open(perAddress, '127.0.0.2'))).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      await end(held);
    }
    await expect.poll(async () => answerOf(await open(perAddress))).toMatch(/^HTTP\/1\.1 200/);
    const metrics = await (await fetch(`${perAddress.url}/metrics`)).text();
    // At least the refusal above (the polls may have been refused too, until the held sockets were gone).
    expect(Number(/cloud_rate_limit_refusals_total\{limit="connections_per_address"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
  });

  it('closes a connection beyond HTTP_MAX_CONNECTIONS at once, and serves again when the held ones go', async () => {
    const held = await Promise.all(Array.from({ length: MAX }, () => open()));
    try {
      const extra = await open();
      const received: Buffer[] = [];
      extra.on('data', (chunk: Buffer) => received.push(chunk));
      extra.on('error', () => undefined);
      extra.write('GET /health HTTP/1.1\r\nHost: cloud\r\n\r\n');
      await new Promise((resolve) => extra.once('close', resolve));
      expect(Buffer.concat(received).length).toBe(0);
    } finally {
      await Promise.all(held.map((s) => new Promise<void>((resolve) => s.end(() => resolve()))));
    }
    await expect.poll(async () => (await fetch(`${cloud.url}/health`).catch(() => undefined))?.status).toBe(200);
  });
});
