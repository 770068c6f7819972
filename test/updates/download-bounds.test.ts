/**
 * The release download's share per locker, through real HTTP: a locker holds one download at a
 * time (a second one at once gets 429 with code 4 and Retry-After), so a stolen controller's
 * credentials cannot take the process's downloads from the others: another locker of the rollout
 * downloads the whole artifact meanwhile, and the first locker downloads again once its first
 * download has ended.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openUpdateWorld, type UpdateWorld } from './rig.js';

/** Large enough that a reader that never reads keeps its download open (socket buffers fill). */
const FILLER_BYTES = 24 * 1024 * 1024;

describe('release downloads: one at a time per locker', () => {
  let world: UpdateWorld;
  let sha256 = '';
  let a = 0;
  let b = 0;

  beforeAll(async () => {
    world = await openUpdateWorld({ lockers: 2, build: '', factory: () => Promise.resolve(Buffer.alloc(0)) });
    [a, b] = world.lockerIds as [number, number];
    const build = join(world.dir, 'big-build');
    mkdirSync(build, { recursive: true });
    writeFileSync(join(build, 'main.js'), 'process.exit(0);\n');
    writeFileSync(join(build, 'filler.bin'), randomBytes(FILLER_BYTES));
    const releaseId = await world.upload(await world.signer.sign(build, '9.9.9'));
    const release = await world.api('GET', `/operator/releases/${releaseId}`);
    sha256 = release.body.sha256 as string;
    const created = await world.api('POST', '/operator/rollouts', {
      releaseId,
      target: { kind: 'lockers', lockerIds: [a, b] },
      waves: [100],
      soakSeconds: 0,
      reason: 'download bounds',
    });
    expect(created.status).toBe(201);
  }, 120_000);

  afterAll(async () => world?.close());

  const download = (lockerId: number): Promise<{ req: ClientRequest; res: IncomingMessage }> =>
    new Promise((resolve, reject) => {
      const url = new URL(`/updates/artifacts/${sha256}`, world.cloud.url);
      const req = request(url, { headers: { authorization: `Basic ${Buffer.from(`${lockerId}:locker-${lockerId}-password`).toString('base64')}` } }, (res) => resolve({ req, res }));
      req.on('error', reject);
      req.end();
    });
  const whole = async (res: IncomingMessage): Promise<number> => {
    let n = 0;
    for await (const chunk of res) n += (chunk as Buffer).length;
    return n;
  };

  it('refuses a second download of the same locker at once, serves another locker meanwhile, and the first again once it ended', async () => {
    const first = await download(a);
    expect(first.res.statusCode).toBe(200);
    first.res.pause(); // a reader that does not read: the download stays open

    const again = await download(a);
    expect(again.res.statusCode).toBe(429);
    expect(again.res.headers['retry-after']).toBe('10');
    let text = '';
    for await (const chunk of again.res) text += String(chunk);
    expect(JSON.parse(text)).toMatchObject({ resultCode: 4 });

    const other = await download(b);
    expect(other.res.statusCode).toBe(200);
    const size = Number(other.res.headers['content-length']);
    expect(size).toBeGreaterThan(FILLER_BYTES);
    expect(await whole(other.res)).toBe(size);

    // The first download ends (the locker goes away); its slot is free again.
    const closed = new Promise((resolve) => first.res.once('close', resolve));
    first.req.destroy();
    await closed;
    // The server frees the slot when it sees the connection close: asked again until it has.
    const retry = await (async () => {
      for (;;) {
        const r = await download(a);
        if (r.res.statusCode !== 429) return r;
        r.res.resume();
        await new Promise((resolve) => r.res.once('end', resolve));
      }
    })();
    expect(retry.res.statusCode).toBe(200);
    expect(await whole(retry.res)).toBe(size);
  }, 120_000);
});
