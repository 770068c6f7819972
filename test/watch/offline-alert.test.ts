/**
 * The locker.offline alert through a real broker and real HTTP, on the cloud's manual clock and
 * scheduler timers: a locker's link dropping (its last will) raises the alert only once it has
 * been offline for LOCKER_OFFLINE_ALERT_SECONDS, the alert names the locker, and the locker
 * coming back resolves it. A drop shorter than the threshold raises nothing.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { loadCloudSettings } from '../../cloud/src/settings.js';
import { ConfigError } from '../../cloud/src/settings-from-env.js';
import { KEYS, testFleet } from '../cloud/helpers/fleet-fixtures.js';
import { ManualClock } from '../cloud/helpers/manual-clock.js';
import { ManualSchedulerTimers } from '../cloud/helpers/manual-timers.js';
import { DEFAULT_NOW } from '../cloud/helpers/test-cloud.js';
import { openTestDatabase, type TestDatabase } from '../helpers/cloud-db.js';
import { eventually } from '../helpers/eventually.js';
import { ScriptedLocker } from '../sync/scripted-locker.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const THRESHOLD_S = 120;
const INTERVAL_S = 10;

interface AlertView {
  id: number;
  kind: string;
  status: string;
  severity: string;
  postamatId: number;
  detail: { name?: string; offlineSince?: string };
}

describe('the locker.offline alert', () => {
  let dir: string;
  let tdb: TestDatabase;
  let cloud: RunningCloud;
  const clock = new ManualClock(DEFAULT_NOW);
  const timers = new ManualSchedulerTimers();
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'offline-alert-'));
    const fleet = testFleet();
    fleet.lockers = fleet.lockers.map((l) => ({ ...l, mqttPasswordSha256: sha(`pw-${l.id}`) }));
    writeFileSync(join(dir, 'fleet.json'), JSON.stringify(fleet));
    tdb = await openTestDatabase('sqlite');
    cloud = await startCloud(
      loadCloudSettings(
        { LOCKER_OFFLINE_ALERT_SECONDS: String(THRESHOLD_S), ALERT_WATCH_INTERVAL_SECONDS: String(INTERVAL_S) },
        { config: { port: 0, host: '127.0.0.1', fleetFile: join(dir, 'fleet.json'), logLevel: 'silent' }, mqtt: { brokerPort: 0 } },
      ),
      { database: tdb, clock, timers },
    );
  });
  afterAll(async () => {
    await cloud.stop();
    await tdb.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const alerts = async (): Promise<AlertView[]> => {
    const res = await fetch(`${cloud.url}/operator/alerts?postamatId=1`, { headers: { 'x-operator-api-key': KEYS.operator } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { alerts: AlertView[] }).alerts.filter((a) => a.kind === 'locker.offline');
  };
  const online = async (): Promise<boolean> => {
    const res = await fetch(`${cloud.url}/operator/lockers/1`, { headers: { 'x-operator-api-key': KEYS.operator } });
    return ((await res.json()) as { online?: boolean }).online === true;
  };
  /** Moves the clock and the scheduler on, then waits for the watch's run that fell due. */
  const pass = async (seconds: number): Promise<void> => {
    clock.advance(seconds * 1000);
    timers.advance(seconds * 1000);
    await cloud.scheduler.idle();
  };

  it('is refused at start when the threshold is not a number of seconds, naming the variable', () => {
    expect(() => loadCloudSettings({ LOCKER_OFFLINE_ALERT_SECONDS: 'soon' })).toThrow(ConfigError);
    expect(() => loadCloudSettings({ LOCKER_OFFLINE_ALERT_SECONDS: '5' })).toThrow(/LOCKER_OFFLINE_ALERT_SECONDS/);
  });

  it('is raised once the link has been offline beyond the threshold and resolved when it is back', async () => {
    let locker = await ScriptedLocker.connect(cloud.brokerUrl!, '1', 'pw-1', 1);
    await locker.hello(0, 0, 1);
    await eventually(online, 'locker 1 online');

    // A short drop: back within the threshold, nothing is raised.
    await locker.drop();
    await eventually(async () => !(await online()), 'locker 1 offline');
    await pass(THRESHOLD_S / 2);
    locker = await ScriptedLocker.connect(cloud.brokerUrl!, '1', 'pw-1', 2);
    await locker.hello(0, 0, 2);
    await eventually(online, 'locker 1 back');
    await pass(THRESHOLD_S);
    expect(await alerts()).toEqual([]);

    // A long drop: raised after the threshold, naming the locker.
    await locker.drop();
    await eventually(async () => !(await online()), 'locker 1 offline again');
    await pass(THRESHOLD_S - INTERVAL_S);
    expect(await alerts()).toEqual([]);
    await pass(2 * INTERVAL_S);
    const [raised] = await alerts();
    expect(raised).toMatchObject({ status: 'open', severity: 'critical', postamatId: 1 });
    expect(raised!.detail.name).toBeTruthy();
    await pass(5 * INTERVAL_S);
    expect((await alerts()).length).toBe(1);

    // Back online: resolved.
    locker = await ScriptedLocker.connect(cloud.brokerUrl!, '1', 'pw-1', 3);
    await locker.hello(0, 0, 3);
    await eventually(online, 'locker 1 back again');
    await pass(INTERVAL_S);
    expect((await alerts()).map((a) => a.status)).toEqual(['resolved']);
    await locker.end();
  });
});
