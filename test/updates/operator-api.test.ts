/**
 * The operator's side of updates through the real cloud, broker and HTTP API, with lockers that
 * speak the link protocol from the test (no agent process):
 *
 * - the version an agent says in its presence and hello shows in the console's locker list and
 *   page, in /operator/agents and in the metric cloud_locker_agent_versions;
 * - a viewer reads releases, rollouts and agents but every change is refused with 403 and the
 *   error envelope, and changes nothing;
 * - every operator action (upload, create, pause, resume, abort, rollback) is in the audit log
 *   with its operator and reason.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../shared/src/protocol.js';
import { topics } from '../../shared/src/topics.js';
import { connectClient, type TestClient } from '../broker/mqtt-client.js';
import { eventually } from '../helpers/eventually.js';
import { openUpdateWorld, type Json, type UpdateWorld } from './rig.js';

describe('updates through the operator API', () => {
  let world: UpdateWorld;
  let a: number;
  let b: number;
  const clients: TestClient[] = [];
  let build: string;

  /** A locker on the link: retained presence with its version, and (when it installs releases) a hello saying so. */
  const lockerSays = async (lockerId: number, version: string, hello: boolean): Promise<TestClient> => {
    const id = String(lockerId);
    const c = await connectClient(world.brokerUrl, { clientId: id, username: id, password: `locker-${lockerId}-password` });
    clients.push(c);
    await c.subscribe(topics.down(id));
    await c.publish(topics.presence(id), { v: PROTOCOL_VERSION, online: true, conn: 1, at: Date.now(), version }, { retain: true });
    if (hello) await c.publish(topics.up(id), { v: PROTOCOL_VERSION, type: 'hello', lockerId: id, appliedCseq: 0, ackedDseq: 0, conn: 1, agent: { version, updates: true } });
    return c;
  };

  beforeAll(async () => {
    world = await openUpdateWorld({ lockers: 2, build: '', factory: () => Promise.resolve(Buffer.alloc(0)) });
    [a, b] = world.lockerIds as [number, number];
    build = join(world.dir, 'tiny-build');
    mkdirSync(build, { recursive: true });
    writeFileSync(join(build, 'main.js'), 'process.exit(0);\n');
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
    await world?.close();
  });

  it("shows each agent's version, as its presence and hello say, in the locker list and page, /operator/agents and the metrics", async () => {
    await lockerSays(a, '1.0.0', true);
    await lockerSays(b, '1.1.0-rc.1', false);
    const agents = await eventually(async () => {
      const r = await world.api('GET', '/operator/agents?pageSize=100');
      const mine = (r.body.items as Json[]).filter((x) => x.lockerId === a || x.lockerId === b);
      return mine.every((x) => x.version !== null) ? mine : undefined;
    }, 'both versions recorded');
    expect(agents).toEqual([
      expect.objectContaining({ lockerId: a, version: '1.0.0', updates: true }),
      expect.objectContaining({ lockerId: b, version: '1.1.0-rc.1', updates: false }),
    ]);

    const list = await world.api('GET', `/operator/lockers?query=${a}`);
    expect(list.status).toBe(200);
    expect(list.body.items[0]).toMatchObject({ lockerId: a, agentVersion: '1.0.0' });
    const page = await world.api('GET', `/operator/lockers/${b}`);
    expect(page.body).toMatchObject({ lockerId: b, agentVersion: '1.1.0-rc.1' });

    const metrics = await (await fetch(`${world.cloud.url}/metrics`)).text();
    expect(metrics).toMatch(/^cloud_locker_agent_versions\{version="1\.0\.0"\} 1$/m);
    expect(metrics).toMatch(/^cloud_locker_agent_versions\{version="1\.1\.0-rc\.1"\} 1$/m);
  });

  it('lets a viewer read but refuses every change with 403, and audits what operators do', async () => {
    const v2 = await world.signer.sign(build, '2.0.0');
    const asViewer = (method: string, path: string, body?: unknown) => world.api(method, path, body, true);

    // A viewer cannot upload.
    const refusedUpload = await asViewer('POST', '/operator/releases', { artifact: v2.toString('base64') });
    expect(refusedUpload.status).toBe(403);
    expect(refusedUpload.body).toMatchObject({ resultCode: expect.any(Number), message: expect.stringContaining('viewer') });
    expect((await asViewer('GET', '/operator/releases')).body.total).toBe(0);

    const releaseId = await world.upload(v2);
    const create = { releaseId, target: { kind: 'lockers', lockerIds: [a, b] }, waves: [50, 100], soakSeconds: 0, healthWindowSeconds: 60, maxFailurePercent: 50, reason: 'scanner fix' };
    expect((await asViewer('POST', '/operator/rollouts', create)).status).toBe(403);
    expect((await asViewer('GET', '/operator/rollouts')).body.total).toBe(0);

    const created = await world.api('POST', '/operator/rollouts', create);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as number;
    for (const action of ['pause', 'resume', 'abort']) {
      const r = await asViewer('POST', `/operator/rollouts/${id}/${action}`, { reason: 'not mine' });
      expect(r.status, action).toBe(403);
    }
    expect((await asViewer('POST', `/operator/rollouts/${id}/rollback`, { releaseId, reason: 'not mine' })).status).toBe(403);
    expect((await asViewer('GET', `/operator/rollouts/${id}`)).body.state).toBe('running');
    expect((await asViewer('GET', `/operator/rollouts/${id}/lockers`)).status).toBe(200);

    // The first wave is locker a (the list's order): it is offered 2.0.0 and says it runs it.
    const offer = await clients[0]!.waitFor((m) => m.topic === topics.down(String(a)) && (JSON.parse(m.payload)).type === 'update', 'the offer to locker a');
    expect((JSON.parse(offer.payload)).offer).toMatchObject({ rolloutId: id, version: '2.0.0' });
    const report = { rolloutId: id, releaseId, version: '2.0.0', running: '2.0.0', at: Date.now() };
    await clients[0]!.publish(topics.up(String(a)), { v: PROTOCOL_VERSION, type: 'update', report: { ...report, state: 'confirmed' } });
    // b never said it installs releases: skipped; the rollout completes.
    await world.waitRollout(id, 'the rollout to complete', (r) => r.state === 'completed', 30_000);

    const back = await world.upload(await world.signer.sign(build, '1.0.1', ['--rollback-from', '2.0.0']));
    const rolledBack = await world.api('POST', `/operator/rollouts/${id}/rollback`, { releaseId: back, reason: 'revert scanner fix' });
    expect(rolledBack.status, JSON.stringify(rolledBack.body)).toBe(201);
    const rb = rolledBack.body.id as number;
    expect(rolledBack.body).toMatchObject({ rollbackOf: id, lockers: { total: 1 } });
    for (const action of ['pause', 'resume', 'abort']) {
      const r = await world.api('POST', `/operator/rollouts/${rb}/${action}`, { reason: `${action} for the test` });
      expect(r.status, `${action}: ${JSON.stringify(r.body)}`).toBe(200);
    }
    expect((await world.api('POST', `/operator/rollouts/${rb}/resume`, { reason: 'too late' })).status).toBe(409);

    const audit = (await world.api('GET', '/operator/audit?pageSize=100')).body.items as Json[];
    const actions = audit.map((e) => `${e.action} ${e.target} ${e.operator}`).reverse();
    expect(actions).toEqual([
      `release.upload release:${releaseId} ops`,
      `rollout.create rollout:${id} ops`,
      `release.upload release:${back} ops`,
      `rollout.create rollout:${rb} ops`,
      `rollout.rollback rollout:${id} ops`,
      `rollout.pause rollout:${rb} ops`,
      `rollout.resume rollout:${rb} ops`,
      `rollout.abort rollout:${rb} ops`,
    ]);
    expect(audit.find((e) => e.action === 'rollout.rollback')).toMatchObject({ reason: 'revert scanner fix' });
  }, 60_000);
});
