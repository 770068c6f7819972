/**
 * A power cut at each step of an update on the locker: the agent (the built bundle under its
 * systemd unit, test/helpers/unit-supervisor.ts) is killed with SIGKILL the moment it reaches the
 * step (a preload, KILL_AT_STEP below, listens to the steps the updater announces:
 * agent/src/updates/update-steps.ts) and started again as systemd would, the launcher first.
 *
 * Steps: the download (its first bytes on the disk), the verification (passed, not yet recorded),
 * the staging (half the files unpacked), the switch (recorded, the process not yet gone), the new
 * version's first start (before its health check) and its confirmation (recorded, not yet reported).
 * Each ends with a working agent that runs 2.0.0, the rollout completed, and every door event of
 * the locker, before, between and after, in the cloud once: its event numbers contiguous, each
 * door's opening and closing there exactly once.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPDATE_STEP_CHANNEL } from '../../agent/src/updates/update-steps.js';
import { eventually } from '../helpers/eventually.js';
import { builtAgent, openUpdateWorld, type Controller, type UpdateWorld } from './rig.js';

const STEPS = ['download', 'verify', 'stage', 'switch', 'first-start', 'confirm'] as const;
/**
 * Preloaded into every life of the agent (node --import): when the update reaches the step named
 * by KILL_AT_STEP, the process kills itself with SIGKILL, once (the marker file records it), as a
 * power cut at that moment would.
 */
const KILL_AT_STEP = `
import { subscribe } from 'node:diagnostics_channel';
import { existsSync, writeFileSync } from 'node:fs';
const step = process.env.KILL_AT_STEP;
const marker = process.env.KILL_AT_STEP_MARKER;
if (step && marker) subscribe('${UPDATE_STEP_CHANNEL}', (message) => {
  if (message.step !== step || existsSync(marker)) return;
  writeFileSync(marker, JSON.stringify({ ...message, pid: process.pid }));
  process.kill(process.pid, 'SIGKILL');
});`;
const PRELOAD = `data:text/javascript,${encodeURIComponent(KILL_AT_STEP)}`;

describe('a power cut at each step of an update on the locker', () => {
  let world: UpdateWorld;
  let releaseId: number;

  beforeAll(async () => {
    const build = await builtAgent();
    world = await openUpdateWorld({ lockers: STEPS.length, build, factory: (s) => s.sign(build, '1.0.0') });
    releaseId = await world.upload(await world.signer.sign(build, '2.0.0'));
  }, 300_000);

  afterAll(async () => {
    await world?.close();
  });

  async function doorEvents(lockerId: number): Promise<{ dseq: number; type: string; body: string }[]> {
    return world.cloud.deps.cdb.db.selectFrom('inbox_events').select(['dseq', 'type', 'body']).where('locker_id', '=', lockerId).orderBy('dseq').execute();
  }

  /** Opens a door nobody asked to open and closes it: two door events, once the cloud has both. */
  async function doorCycle(c: Controller, lock: number, expected: number): Promise<void> {
    c.sim.openDoor({ board: 0, lock });
    await eventually(async () => (await doorEvents(c.lockerId)).some((e) => e.type === 'door.alarm' && e.body.includes('opened_unexpectedly') && e.body.includes(`"cellId":${lock}`)), `the door ${lock} opening at locker ${c.lockerId}`, 60_000, 100);
    c.sim.closeDoor({ board: 0, lock });
    await eventually(async () => (await doorEvents(c.lockerId)).filter((e) => e.type === 'door.alarm').length >= expected || undefined, `the door ${lock} closing at locker ${c.lockerId}`, 60_000, 100);
  }

  it.concurrent.each(STEPS.map((step, i) => [step, i] as const))(
    'killed at %s, it comes back, runs 2.0.0, and no door event is lost or applied twice',
    async (step, i) => {
      const lockerId = world.lockerIds[i]!;
      const marker = join(world.dir, `killed-${step}`);
      const c = await world.controller(lockerId, { nodeArgs: ['--import', PRELOAD], env: { KILL_AT_STEP: step, KILL_AT_STEP_MARKER: marker } });
      c.unit.start();
      await c.runs('1.0.0');
      await doorCycle(c, 1, 2);

      const created = await world.api('POST', '/operator/rollouts', { releaseId, target: { kind: 'lockers', lockerIds: [lockerId] }, waves: [100], healthWindowSeconds: 60, maxFailurePercent: 0 });
      expect(created.status).toBe(201);
      await eventually(() => existsSync(marker), `the agent to die at ${step}`, 120_000, 50);
      await eventually(() => c.unit.lives.some((l) => l.exit?.signal === 'SIGKILL'), 'the SIGKILL to be seen', 30_000, 50);
      // The supervisor starts it again; a door opened and closed meanwhile is seen by whichever version runs.
      await eventually(() => c.unit.current && !c.unit.current.exit && c.unit.current.screenUrl, 'the agent to be up again', 60_000, 50);
      await doorCycle(c, 2, 4);

      await c.runs('2.0.0', 120_000);
      const done = await world.waitRollout(created.body.id, `the rollout after the cut at ${step}`, (r) => r.state === 'completed');
      expect(done.lockers.byState).toEqual({ confirmed: 1 });
      await doorCycle(c, 3, 6);

      // The versions of the agent's lives: 1.0.0 until the switch, 2.0.0 after it; the killed life
      // of the new version at its first start never said it started.
      const versions = c.unit.lives.map((l) => l.version ?? 'killed');
      if (step === 'first-start') expect(versions).toEqual(['1.0.0', 'killed', '2.0.0']);
      else if (step === 'switch') expect(versions).toEqual(['1.0.0', '2.0.0']);
      else if (step === 'confirm') expect(versions).toEqual(['1.0.0', '2.0.0', '2.0.0']);
      else expect(versions).toEqual(['1.0.0', '1.0.0', '2.0.0']);
      if (step === 'download') expect(c.unit.lines.some((l) => l.msg === 'update: resuming the download' && Number(l.from) > 0)).toBe(true);

      // Every event once: numbers without a gap, each door opened and closed once, the cloud's ack at the last.
      const events = await doorEvents(lockerId);
      expect(events.map((e) => e.dseq)).toEqual(events.map((_, k) => k + 1));
      const doors = events.filter((e) => e.type === 'door.alarm').map((e) => JSON.parse(e.body) as { cellId: number; kind: string });
      expect(doors.map((d) => `${d.cellId}:${d.kind}`)).toEqual(['1:opened_unexpectedly', '1:closed', '2:opened_unexpectedly', '2:closed', '3:opened_unexpectedly', '3:closed']);
      const locker = await world.cloud.deps.cdb.db.selectFrom('lockers').select('acked_dseq').where('id', '=', lockerId).executeTakeFirstOrThrow();
      expect(locker.acked_dseq).toBe(events.at(-1)!.dseq);
    },
    300_000,
  );
});
