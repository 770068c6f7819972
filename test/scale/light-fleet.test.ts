/**
 * The fleet load generator against a real cloud (HTTP API, fleet file, the locker link with the
 * domain's event handling, SQLite): 50 light lockers, one MQTT connection each, come online as
 * the cloud sees them; an order for every locker reaches it and is applied exactly once; with
 * the lockers' commands lost on the way and the broker restarted, every locker comes back and
 * every pending command is applied exactly once. Through the embedded broker (restarted on its
 * port) and a private Mosquitto (restarted from its persistence).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { loadConfig } from '../../cloud/src/config.js';
import { createLockerEventApplier } from '../../cloud/src/locker-events/apply-locker-event.js';
import { MqttPart } from '../../cloud/src/sync/mqtt-part.js';
import { benchFleet, createOrderPerLocker, lockerPassword, writeFleet } from '../../bench/bench-fleet.js';
import { LightFleet, type FleetStats } from '../../bench/fleet-load/light-fleet.js';
import { openTestDatabase, type TestDatabase } from '../helpers/cloud-db.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/free-port.js';
import { startPrivateMosquitto, type PrivateMosquitto } from '../helpers/private-mosquitto.js';
import { requires } from '../helpers/requirements.js';

const N = 50;
const IDS = Array.from({ length: N }, (_, i) => 7001 + i);
const CLOUD_USER = { username: 'cloud-1', password: 'scale-cloud-secret' };
const logger = pino({ level: 'silent' });

interface World {
  cloud: RunningCloud;
  tdb: TestDatabase;
  fleet: LightFleet;
  restartBroker(): Promise<void>;
  close(): Promise<void>;
}

async function openWorld(broker: 'embedded' | 'mosquitto'): Promise<World> {
  const tdb = await openTestDatabase('sqlite');
  const fleetFile = writeFleet(benchFleet(IDS, 4));
  const port = await freePort();
  let mosquitto: PrivateMosquitto | undefined;
  if (broker === 'mosquitto') {
    mosquitto = await startPrivateMosquitto(Object.fromEntries([[CLOUD_USER.username, CLOUD_USER.password], ...IDS.map((id) => [String(id), lockerPassword(id)])]));
  }
  let part: MqttPart | undefined;
  const cloud = await startCloud(loadConfig({}, { port: 0, host: '127.0.0.1', fleetFile: fleetFile.file, logLevel: 'silent' }), {
    database: tdb,
    logger,
    parts: [
      (deps) =>
        (part = new MqttPart(
          { url: mosquitto?.url, brokerHost: '127.0.0.1', brokerPort: port, ...CLOUD_USER },
          {
            db: deps.cdb,
            signals: deps.signals,
            clock: deps.clock,
            logger,
            applyEvent: createLockerEventApplier(deps),
            options: { reconnectPeriodMs: 100 },
          },
        )),
    ],
  });
  const url = mosquitto?.url ?? `mqtt://127.0.0.1:${port}`;
  const fleet = new LightFleet(
    IDS.map((id) => ({ id, password: lockerPassword(id) })),
    { url, rampMs: 0, keepaliveSec: 30, reconnectMinMs: 50, reconnectMaxMs: 1_000, resendAfterMs: 5_000, connectTimeoutMs: 5_000 },
  );
  fleet.start();
  return {
    cloud,
    tdb,
    fleet,
    async restartBroker() {
      if (mosquitto) return mosquitto.restart();
      // The embedded broker lives in the cloud's MQTT part: it stops (every connection with it)
      // and starts again on the same port, with nothing retained.
      await part!.stop();
      await part!.start();
    },
    async close() {
      fleet.stop();
      await cloud.stop();
      await mosquitto?.stop();
      await tdb.close();
      fleetFile.remove();
    },
  };
}

const createOrders = (w: World, prefix: string): Promise<void> => createOrderPerLocker(w.cloud.url, IDS, prefix, 8);

/** Lockers the cloud sees online with a hello answered, and lockers that applied every command of theirs. */
async function cloudView(tdb: TestDatabase): Promise<{ online: number; caughtUp: number }> {
  const rows = await tdb.db.selectFrom('lockers').select(['online', 'hello_conn', 'presence_conn', 'applied_cseq', 'next_cseq']).execute();
  return {
    online: rows.filter((r) => r.online === 1 && r.hello_conn === r.presence_conn).length,
    caughtUp: rows.filter((r) => r.applied_cseq === r.next_cseq - 1).length,
  };
}

const allOnline = (w: World, what: string): Promise<FleetStats> =>
  eventually(async () => {
    const s = w.fleet.stats();
    return s.online === N && (await cloudView(w.tdb)).online === N ? s : null;
  }, what);

const brokers = [['embedded', true] as const, ['mosquitto', requires('mosquitto')] as const];

describe.each(brokers)('a light fleet of %s lockers through the broker', (broker, available) => {
  let w: World;
  beforeAll(async () => {
    if (available) w = await openWorld(broker);
  });
  afterAll(async () => {
    await w?.close();
  });

  it.runIf(available)('comes online as the cloud sees it, takes a burst once each, and recovers from a broker restart once each', async () => {
    const first = await allOnline(w, `${N} lockers online`);
    expect(first.refused).toBe(0);
    await eventually(async () => (await cloudView(w.tdb)).caughtUp === N, 'the lockers to apply their layout');

    // The burst: one order per locker, each order.upsert applied once at its locker.
    w.fleet.watchOrders('B-');
    w.fleet.expectApplied(1);
    await createOrders(w, 'B-');
    await eventually(() => w.fleet.stats().appliedAtLeast === N, 'every locker to apply its order');
    await eventually(async () => (await cloudView(w.tdb)).caughtUp === N, 'the cloud to have every ack');
    let s = w.fleet.stats();
    expect([s.upsertedOnce, s.upsertedTwice, s.gaps]).toEqual([N, 0, 0]);

    // The storm: commands lost on the way until the broker restarts; every locker reconnects.
    const connectsBefore = s.connects;
    w.fleet.setDeaf(true);
    w.fleet.watchOrders('S-');
    w.fleet.expectApplied(1);
    await createOrders(w, 'S-');
    await eventually(() => w.fleet.stats().dropped >= N, 'the commands to reach the deaf lockers');
    w.fleet.setDeaf(false);
    await w.restartBroker();
    await eventually(() => w.fleet.stats().connects >= connectsBefore + N && w.fleet.stats().appliedAtLeast === N, 'every locker back with its pending order');
    s = await allOnline(w, `${N} lockers online again`);
    await eventually(async () => (await cloudView(w.tdb)).caughtUp === N, 'the cloud to have every ack after the restart');
    s = w.fleet.stats();
    expect([s.upsertedOnce, s.upsertedTwice, s.gaps]).toEqual([N, 0, 0]);
  });
});
