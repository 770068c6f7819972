/**
 * The cloud's HTTP connections are bounded (HTTP_MAX_CONNECTIONS): a caller holding every socket
 * the process allows gets its next connection closed at once, unanswered, and the API answers
 * again as soon as those sockets go. Through real sockets against a cloud from startCloud().
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { loadCloudSettings } from '../../cloud/src/settings.js';

const MAX = 16;
const dir = mkdtempSync(join(tmpdir(), 'http-connections-'));
let cloud: RunningCloud;

beforeAll(async () => {
  cloud = await startCloud(
    loadCloudSettings({ HTTP_MAX_CONNECTIONS: String(MAX) }, { config: { port: 0, sqlitePath: join(dir, 'cloud.sqlite'), logLevel: 'silent' }, mqtt: { enabled: false } }),
  );
});
afterAll(async () => {
  await cloud?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function open(): Promise<Socket> {
  const { hostname, port } = new URL(cloud.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('HTTP connections', () => {
  it('refuses a setting below its minimum, naming it', () => {
    expect(() => loadCloudSettings({ HTTP_MAX_CONNECTIONS: '3' })).toThrow(/HTTP_MAX_CONNECTIONS/);
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
