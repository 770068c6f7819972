/**
 * The locker link set up for measurement, shared by bench/link.bench.ts and the throughput
 * scenario: a cloud with its embedded broker on a throwaway database, one agent (simulator plus
 * agent with its SQLite store) whose events are acked back, and a raw MQTT round trip (a message
 * down to a spare locker's topic, which publishes it back up) through the same broker as baseline.
 */
import { pino } from 'pino';
import mqtt, { type MqttClient } from 'mqtt';
import { startCloud } from '../cloud/src/cloud.js';
import type { Engine } from '../cloud/src/db/database.js';
import { readFleetFile } from '../cloud/src/fleet/provision.js';
import { loadCloudSettings } from '../cloud/src/settings.js';
import { startLockerRig, type LockerRig } from '../demo/fleet-runner.js';
import { disableNagle } from '../shared/src/mqtt-nodelay.js';
import { topics } from '../shared/src/topics.js';
import { openTestDatabase } from '../test/helpers/cloud-db.js';
import { benchFleet, lockerPassword, writeFleet } from './bench-fleet.js';

const AGENT_LOCKER = 1;
const SPARE_LOCKER = 2;
const CLOUD = { username: 'cloud', password: 'bench-cloud-secret' };
const logger = pino({ level: 'silent' });

export type Cleanup = () => Promise<void> | void;

export interface LinkRig {
  /** Commits `n` events to the agent's store and resolves when the cloud has acked the last. */
  emit(n: number): Promise<void>;
  /** One raw MQTT round trip (QoS 1 down to a locker's topic, and back up). */
  rawRoundTrip(): Promise<void>;
  /** Starts another locker of the fleet (`extraLockers`) as simulator plus agent. */
  startLocker(id: number): Promise<LockerRig>;
  /** Whether a locker is connected and has its layout. */
  ready(rig: LockerRig): boolean;
}

export async function until(done: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`link bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits for the agent's store to be acked up to a dseq, resolved by the link's receive hook. */
class AckWatch {
  #waiters: { dseq: number; resolve: () => void }[] = [];
  seen(ackedDseq: number): void {
    const ready = this.#waiters.filter((w) => w.dseq <= ackedDseq);
    this.#waiters = this.#waiters.filter((w) => w.dseq > ackedDseq);
    for (const w of ready) w.resolve();
  }
  until(dseq: number): Promise<void> {
    return new Promise((resolve) => this.#waiters.push({ dseq, resolve }));
  }
}

/** Sets the rig up; every cleanup is pushed to `cleanups`, to be run in reverse. */
export async function startLinkRig(engine: Engine, cleanups: Cleanup[], extraLockers: readonly number[] = []): Promise<LinkRig> {
  const tdb = await openTestDatabase(engine);
  const fleetInput = benchFleet([AGENT_LOCKER, SPARE_LOCKER, ...extraLockers], 24);
  const fleetFile = writeFleet(fleetInput);
  cleanups.push(() => tdb.close(), () => fleetFile.remove());
  const settings = loadCloudSettings(
    {},
    {
      config: { host: '127.0.0.1', port: 0, fleetFile: fleetFile.file, logLevel: 'silent' },
      mqtt: { brokerHost: '127.0.0.1', brokerPort: 0, ...CLOUD },
      sandbox: { firstPort: 0 },
    },
  );
  const cloud = await startCloud(settings, { database: tdb, logger });
  cleanups.push(() => cloud.stop());
  const brokerUrl = cloud.brokerUrl!;
  const fleet = await readFleetFile(fleetFile.file);
  const lockerOf = (id: number) => fleet.lockers.find((l) => l.id === id)!;
  const rig = async (id: number, hooks?: { onReceive(m: { type: string; ackedDseq?: number }): boolean }): Promise<LockerRig> =>
    startLockerRig({
      locker: lockerOf(id),
      mqtt: { url: brokerUrl, password: lockerPassword(id) },
      dataDir: fleetFile.dir,
      screenPort: 0,
      simPort: null,
      logger,
      ...(hooks ? { agentDeps: { link: { hooks } } } : {}),
    });
  const ready = (r: LockerRig) => r.agent.link?.connected === true && r.agent.store.cells.all().length > 0;

  const acks = new AckWatch();
  const agent = await rig(AGENT_LOCKER, {
    onReceive(m) {
      if (m.type === 'ack' && m.ackedDseq !== undefined) acks.seen(m.ackedDseq);
      return true;
    },
  });
  cleanups.push(() => agent.stop());
  await until(() => ready(agent), 'the agent to connect and get its layout');

  const connect = async (clientId: string, username: string, password: string): Promise<MqttClient> => {
    const client = await mqtt.connectAsync(brokerUrl, { clientId, username, password, protocolVersion: 4, clean: true, reconnectPeriod: 0 });
    // The same socket setting as the link's own clients, so the baseline is the transport alone.
    disableNagle(client);
    cleanups.push(() => client.endAsync());
    return client;
  };
  const locker = await connect(String(SPARE_LOCKER), String(SPARE_LOCKER), lockerPassword(SPARE_LOCKER));
  await locker.subscribeAsync(topics.down(String(SPARE_LOCKER)), { qos: 1 });
  locker.on('message', (_topic, payload) => void locker.publishAsync(topics.up(String(SPARE_LOCKER)), payload, { qos: 1 }));
  const cloudSide = await connect(`${CLOUD.username}-bench`, CLOUD.username, CLOUD.password);
  await cloudSide.subscribeAsync(topics.up(String(SPARE_LOCKER)), { qos: 1 });
  let answered: (() => void) | undefined;
  cloudSide.on('message', () => answered?.());

  return {
    emit(n) {
      // One agent transaction: the batch is what the cloud applies, not n commits of the agent's.
      const store = agent.agent.store;
      let last = 0;
      store.tx(() => {
        for (let i = 0; i < n; i++) last = store.outbox.emit({ type: 'code.attempt', kind: 'customer', ok: i % 2 === 0 });
      });
      return acks.until(last);
    },
    rawRoundTrip: () =>
      new Promise<void>((resolve) => {
        answered = resolve;
        cloudSide.publish(topics.down(String(SPARE_LOCKER)), 'ping', { qos: 1 });
      }),
    startLocker: (id) => rig(id),
    ready,
  };
}
