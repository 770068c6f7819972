/**
 * Releases rolled out to real agents: each locker's agent is the built bundle, run as its systemd
 * unit runs it (the launcher before each start, the agent through releases/current; restarts and
 * the start limit as systemd applies them: test/helpers/unit-supervisor.ts), against its own
 * simulator and a cloud with the embedded broker. Releases are signed with the operator's command
 * line from one build: 1.0.0 is the factory install, 2.0.0 the same code saying another version,
 * 3.0.0 a build that dies at start.
 *
 * - 2.0.0 moves three lockers from 1.0.0 in waves (one, then one, then the rest), each wave after
 *   the one before confirmed; a fourth locker, offline during the rollout, updates when it comes
 *   back, and only then is the rollout completed.
 * - 3.0.0 goes to its first locker only: it dies at start, the launcher takes that locker back to
 *   2.0.0, the locker reports the rollback and the rollout halts by itself.
 * - An artifact with one bit flipped is refused: by the cloud at upload, and by an agent that
 *   downloads it from a mirror that flips it (the locker stays on its version, the rollout halts).
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { brokenBuild, builtAgent, openUpdateWorld, type Controller, type UpdateWorld } from './rig.js';

/** A mirror of the cloud's artifacts that flips one bit of what it passes on. */
async function flippingMirror(upstream: string): Promise<{ url: string; server: Server; served: () => number }> {
  let served = 0;
  const server = createServer((req, res) => {
    const up = request(new URL(req.url ?? '/', upstream), { method: 'GET', headers: { authorization: req.headers.authorization ?? '', ...(req.headers.range ? { range: req.headers.range } : {}) } }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => {
        const body = Buffer.concat(chunks);
        if (r.statusCode === 200 && body.length > 1000) {
          body[body.length - 500]! ^= 0x04;
          served += 1;
        }
        res.writeHead(r.statusCode ?? 502, { 'content-type': r.headers['content-type'] ?? 'application/octet-stream', 'content-length': body.length });
        res.end(body);
      });
    });
    up.on('error', () => res.destroy());
    up.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, served: () => served };
}

describe('rollouts to real agents under their systemd unit', () => {
  let world: UpdateWorld;
  let v2: Buffer;
  let v3: Buffer;
  let lockers: Controller[];
  let mirror: Awaited<ReturnType<typeof flippingMirror>>;
  let v2Id: number;

  beforeAll(async () => {
    const build = await builtAgent();
    world = await openUpdateWorld({ lockers: 5, build, factory: (s) => s.sign(build, '1.0.0') });
    v2 = await world.signer.sign(build, '2.0.0');
    v3 = await world.signer.sign(brokenBuild(build, world.dir), '3.0.0');
    mirror = await flippingMirror(world.cloud.url);
    lockers = [];
    for (const [i, id] of world.lockerIds.entries()) lockers.push(await world.controller(id, i === 4 ? { downloadUrl: mirror.url } : {}));
  }, 300_000);

  afterAll(async () => {
    await world?.close();
    mirror?.server.close();
  });

  it('moves three lockers from 1.0.0 to 2.0.0 in waves; a locker offline meanwhile updates when it comes back', async () => {
    const [a, b, c, d] = lockers as [Controller, Controller, Controller, Controller];
    for (const l of [a, b, c]) l.unit.start();
    await Promise.all([a, b, c].map((l) => l.runs('1.0.0')));
    // Each agent's version is in its hello (and presence): the cloud lists it.
    const agents = await eventually(async () => {
      const r = await world.api('GET', '/operator/agents?version=1.0.0');
      return r.body.total >= 3 ? r.body : undefined;
    }, 'the cloud to know the agents run 1.0.0');
    expect(agents.items.map((x: { lockerId: number }) => x.lockerId).sort()).toEqual([a, b, c].map((l) => l.lockerId).sort());

    v2Id = await world.upload(v2);
    const created = await world.api('POST', '/operator/rollouts', {
      releaseId: v2Id,
      target: { kind: 'lockers', lockerIds: [a, b, c, d].map((l) => l.lockerId) },
      waves: [25, 50, 100],
      soakSeconds: 1,
      healthWindowSeconds: 60,
      maxFailurePercent: 0,
      reason: 'new version',
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect(created.body.wave).toMatchObject({ current: 1, of: 3 });

    await Promise.all([a, b, c].map((l) => l.runs('2.0.0', 120_000)));
    const settled = await world.waitRollout(id, 'the third wave to settle without the offline locker', (r) => r.wave.current === 3 && r.lockers.byState.confirmed === 3);
    expect(settled.state).toBe('running');
    const members = (await world.api('GET', `/operator/rollouts/${id}/lockers`)).body.items as { lockerId: number; wave: number; state: string; offeredAt: string | null; finishedAt: string | null }[];
    const byId = new Map(members.map((m) => [m.lockerId, m]));
    expect(members.map((m) => m.wave)).toEqual([1, 2, 3, 3]);
    // Waves in turn: the second offered only after the first confirmed, the third after the second.
    expect(Date.parse(byId.get(b.lockerId)!.offeredAt!)).toBeGreaterThanOrEqual(Date.parse(byId.get(a.lockerId)!.finishedAt!));
    expect(Date.parse(byId.get(c.lockerId)!.offeredAt!)).toBeGreaterThanOrEqual(Date.parse(byId.get(b.lockerId)!.finishedAt!));
    expect(byId.get(d.lockerId)).toMatchObject({ state: 'pending', offeredAt: null });
    // Each updated locker went through one switch: the factory life, then 2.0.0 (no crash, no rollback).
    for (const l of [a, b, c]) expect(l.unit.lives.map((x) => x.version)).toEqual(['1.0.0', '2.0.0']);

    d.unit.start();
    await d.runs('2.0.0', 120_000);
    expect(d.unit.lives[0]!.version).toBe('1.0.0');
    const done = await world.waitRollout(id, 'the rollout to complete', (r) => r.state === 'completed');
    expect(done.lockers.byState).toEqual({ confirmed: 4 });
    const metrics = await (await fetch(`${world.cloud.url}/metrics`)).text();
    expect(metrics).toMatch(/cloud_locker_agent_versions\{version="2\.0\.0"\} 4/);
  }, 300_000);

  it('rolls a release that dies at start back on its first locker, and halts the rollout by itself', async () => {
    const [a, b, c, d] = lockers as [Controller, Controller, Controller, Controller];
    const v3Id = await world.upload(v3);
    const created = await world.api('POST', '/operator/rollouts', {
      releaseId: v3Id,
      target: { kind: 'lockers', lockerIds: [a, b, c, d].map((l) => l.lockerId) },
      waves: [25, 50, 100],
      soakSeconds: 1,
      healthWindowSeconds: 60,
      maxFailurePercent: 0,
    });
    expect(created.status).toBe(201);
    const halted = await world.waitRollout(created.body.id, 'the rollout to halt', (r) => r.state === 'halted', 180_000);
    expect(halted.haltReason).toMatch(/wave 1: 1 of 1/);
    await a.runs('2.0.0');
    const members = (await world.api('GET', `/operator/rollouts/${created.body.id}/lockers`)).body.items as { lockerId: number; state: string; reason: string | null }[];
    expect(members[0]).toMatchObject({ lockerId: a.lockerId, state: 'rolled_back', reason: 'crash_loop' });
    expect(members.slice(1).map((m) => m.state)).toEqual(['pending', 'pending', 'pending']);
    // The broken version never said it started: it died, was started once more, and the launcher went back.
    const lives = a.unit.lives.slice(2);
    expect(lives.filter((l) => l.exit && l.exit.code !== 0 && l.version === undefined).length).toBe(2);
    expect(lives.at(-1)!.version).toBe('2.0.0');
    for (const l of [b, c, d]) expect(l.version()).toBe('2.0.0');
  }, 300_000);

  it('refuses an artifact with one bit flipped: the cloud at upload, the agent after a download from a mirror that flips it', async () => {
    const flipped = Buffer.from(v2);
    flipped[flipped.length - 500]! ^= 0x04;
    const refused = await world.api('POST', '/operator/releases', { artifact: flipped.toString('base64') });
    expect(refused.status).toBe(400);
    expect(refused.body.resultCode).toBe(3);
    expect(refused.body.message).toMatch(/выпуск отклонён \(digest_mismatch\)/);

    const e = lockers[4]!;
    e.unit.start();
    await e.runs('1.0.0');
    const created = await world.api('POST', '/operator/rollouts', { releaseId: v2Id, target: { kind: 'lockers', lockerIds: [e.lockerId] }, waves: [100], maxFailurePercent: 0 });
    expect(created.status).toBe(201);
    const halted = await world.waitRollout(created.body.id, 'the rollout to halt on the refusal', (r) => r.state === 'halted');
    expect(halted.lockers.byState).toEqual({ refused: 1 });
    const member = (await world.api('GET', `/operator/rollouts/${created.body.id}/lockers`)).body.items[0];
    expect(member).toMatchObject({ state: 'refused', reason: 'digest_mismatch' });
    expect(mirror.served()).toBeGreaterThan(0);
    expect(e.unit.lives.map((l) => l.version)).toEqual(['1.0.0']);
  }, 300_000);
});
