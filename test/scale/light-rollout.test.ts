/**
 * The light lockers of the rollout bench (bench/fleet-load/) against a real cloud (embedded
 * broker, SQLite, the rollouts job): they say in their hello that they install releases, answer
 * an offer with the agent's reports step by step, and run the new version; a rollout of a release
 * signed with a test key completes with every locker confirmed, and the cloud's agent list shows
 * the new version everywhere.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentLinkTiming } from '../../bench/fleet-load/agent-timing.js';
import { LightFleet } from '../../bench/fleet-load/light-fleet.js';
import { eventually } from '../helpers/eventually.js';
import { openUpdateWorld, type UpdateWorld } from '../updates/rig.js';

const N = 20;

describe('light lockers through a rollout', () => {
  const dir = mkdtempSync(join(tmpdir(), 'light-rollout-'));
  let world: UpdateWorld;
  let fleet: LightFleet;
  let build: string;

  beforeAll(async () => {
    build = join(dir, 'build');
    mkdirSync(build);
    writeFileSync(join(build, 'main.js'), 'console.log("agent")\n');
    world = await openUpdateWorld({ lockers: N, build, factory: (s) => s.sign(build, '1.0.0') });
    // The rig's lockers log in with `locker-<id>-password`.
    fleet = new LightFleet(
      world.lockerIds.map((id) => ({ id, password: `locker-${id}-password` })),
      { url: world.brokerUrl, rampMs: 0, ...agentLinkTiming(), agentVersion: '1.0.0' },
    );
    fleet.start();
    await eventually(() => (fleet.stats().online === N ? true : null), 'every light locker online');
  }, 60_000);
  afterAll(async () => {
    fleet?.stop();
    await world?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every locker confirms the new version and the rollout completes', async () => {
    const agents = await eventually(async () => {
      const a = (await world.api('GET', '/operator/agents')).body;
      return a.versions.some((v: { version: string | null; lockers: number }) => v.version === '1.0.0' && v.lockers === N) ? a : null;
    }, 'every hello counted');
    expect(agents.items.every((a: { updates: boolean }) => a.updates)).toBe(true);

    const releaseId = await world.upload(await world.signer.sign(build, '1.1.0'));
    const created = await world.api('POST', '/operator/rollouts', { releaseId, target: { kind: 'all' }, waves: [10, 100], soakSeconds: 0, reason: 'light lockers' });
    expect(created.status).toBe(201);
    const done = await world.waitRollout(created.body.id, 'completed', (r) => r.state === 'completed', 60_000);
    expect(done.lockers.byState).toEqual({ confirmed: N });
    expect(done.lockers.waves.map((w: { total: number }) => w.total)).toEqual([2, N - 2]);
    expect(fleet.stats()).toMatchObject({ installed: N });
    const after = (await world.api('GET', '/operator/agents')).body;
    expect(after.versions).toEqual([{ version: '1.1.0', lockers: N }]);
  });
});
