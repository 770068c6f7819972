/**
 * A thousand lockers switched on at the same instant against a real cloud with its embedded
 * broker, with the agent's own connect timeout and back-off: every one comes online as the
 * cloud sees it (presence and hello answered) and as the locker sees it, and applies its layout.
 * More connections than Node's default listen backlog arrive together, and their CONNECTs meet
 * the hellos of the lockers already in.
 */
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { loadConfig } from '../../cloud/src/config.js';
import { createLockerEventApplier } from '../../cloud/src/locker-events/apply-locker-event.js';
import { MqttPart } from '../../cloud/src/sync/mqtt-part.js';
import { benchFleet, lockerPassword, writeFleet } from '../../bench/bench-fleet.js';
import { agentLinkTiming } from '../../bench/fleet-load/agent-timing.js';
import { LightFleet } from '../../bench/fleet-load/light-fleet.js';
import { openTestDatabase, type TestDatabase } from '../helpers/cloud-db.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/free-port.js';

const N = 1_000;
const IDS = Array.from({ length: N }, (_, i) => 9001 + i);
const logger = pino({ level: 'silent' });
/** Bound of the waits: only turns a hang into a failure (a loaded machine is many times slower). */
const BOUND_MS = 180_000;

let tdb: TestDatabase;
let cloud: RunningCloud;
let fleet: LightFleet;
let removeFleetFile: () => void;

beforeAll(async () => {
  tdb = await openTestDatabase('sqlite');
  const fleetFile = writeFleet(benchFleet(IDS, 2));
  removeFleetFile = () => fleetFile.remove();
  const port = await freePort();
  cloud = await startCloud(loadConfig({}, { port: 0, host: '127.0.0.1', fleetFile: fleetFile.file, logLevel: 'silent' }), {
    database: tdb,
    logger,
    parts: [
      (deps) =>
        new MqttPart(
          { brokerHost: '127.0.0.1', brokerPort: port, username: 'cloud-1', password: 'burst-cloud-secret' },
          { db: deps.cdb, signals: deps.signals, clock: deps.clock, logger, applyEvent: createLockerEventApplier(deps) },
        ),
    ],
  });
  fleet = new LightFleet(
    IDS.map((id) => ({ id, password: lockerPassword(id) })),
    { url: `mqtt://127.0.0.1:${port}`, rampMs: 0, ...agentLinkTiming() },
  );
}, BOUND_MS);

afterAll(async () => {
  fleet?.stop();
  await cloud?.stop();
  await tdb?.close();
  removeFleetFile?.();
});

it(`${N} lockers connecting at once all come online and apply their layout`, async () => {
  fleet.start();
  const stats = await eventually(
    async () => {
      const s = fleet.stats();
      if (s.online !== N) return null;
      const rows = await tdb.db.selectFrom('lockers').select(['online', 'hello_conn', 'presence_conn', 'applied_cseq', 'next_cseq']).execute();
      const ready = rows.filter((r) => r.online === 1 && r.hello_conn === r.presence_conn && r.applied_cseq === r.next_cseq - 1);
      return ready.length === N ? s : null;
    },
    `${N} lockers online with their layout applied`,
    BOUND_MS,
    100,
  );
  expect(stats.refused).toBe(0);
  expect(stats.connects).toBeGreaterThanOrEqual(N);
}, BOUND_MS);
