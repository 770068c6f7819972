/**
 * The whole locker network on one machine, in this process: the demo marketplace receiver
 * (HTTPS, its own CA), the cloud (SQLite under the data folder, HTTP API, embedded MQTT broker,
 * notification dispatcher, storage clock) loading the fleet with its receivers pointed at that
 * receiver, and every locker of the fleet as a hardware simulator plus its agent. Optionally
 * continuous traffic. `startDemo()` is what `npm start` runs and what the demo test runs on free
 * ports; `stop()` undoes everything in reverse. State stays in the data folder between runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pino, type Logger } from 'pino';
import { loggerOptions } from '../shared/src/redact.js';
import { systemClock, type Clock } from '../cloud/src/clock.js';
import { startCloud, type RunningCloud } from '../cloud/src/cloud.js';
import { readFleetFile } from '../cloud/src/fleet/provision.js';
import type { Fleet, FleetLocker } from '../cloud/src/fleet/fleet-schema.js';
import { demoCloudSettings, type DemoSettings } from './config.js';
import { knownDemoKeys, lockerPassword, receiverCredentials, writeDemoFleet, type DemoKeys } from './fleet.js';
import { hardwarePortCount, startLockerRig, type LockerRig } from './fleet-runner.js';
import { makeDemoPki } from './pki.js';
import { checkPorts, type PortClaim } from '../cloud/src/port-check.js';
import { blockClaims } from '../cloud/src/sandbox/port-block.js';
import { sandboxSettingsSchema } from '../cloud/src/sandbox/settings.js';
import { DemoReceiver } from './receiver.js';
import { Traffic } from './traffic.js';

export interface DemoLocker {
  id: number;
  name: string;
  timezone: string;
  screenUrl: string;
  /** `SIM_URL` for `npm run sim -- ...` against this locker's hardware. */
  simUrl: string;
  hasScanner: boolean;
  cellIds: number[];
  /** Where cell `cellId`'s lock hangs on the simulator. */
  lockOf(cellId: number): { bus: string; board: number; lock: number };
}

/** A sandbox locker, run by the cloud: its screen and simulator (null when it did not start). */
export interface DemoSandboxLocker {
  id: number;
  name: string;
  screenUrl: string | null;
  simUrl: string | null;
}

export interface RunningDemo {
  /** The cloud's base URL; marketplace API under /api/v4, courier API under /api/v1, docs at /docs. */
  readonly apiUrl: string;
  readonly brokerUrl: string;
  /** The demo receiver: its console page is this URL, its JSON API `/api/notifications`. */
  readonly receiverUrl: string;
  /** The receiver's CA (PEM file), for `curl --cacert`. */
  readonly caFile: string;
  readonly keys: DemoKeys;
  /** Ids of the sandbox marketplaces (their keys are among `keys.marketplaces`). */
  readonly sandboxMarketplaces: string[];
  readonly lockers: DemoLocker[];
  /** The sandbox lockers the cloud runs (docs/sandbox.md). */
  readonly sandboxLockers: DemoSandboxLocker[];
  readonly traffic: Traffic | null;
  readonly dataDir: string;
  stop(): Promise<void>;
}

export interface DemoDeps {
  /** Logger of the receiver and the traffic (info); the cloud and agents log at settings.logLevel through a child of it. */
  logger?: Logger;
  clock?: Clock;
  random?: () => number;
}

/** The first port of each locker's simulated hardware links: consecutive from DEMO_HARDWARE_PORT. */
function hardwarePorts(settings: DemoSettings, lockers: readonly FleetLocker[]): number[] {
  let next = settings.hardwarePort;
  return lockers.map((l) => {
    const first = next;
    if (next !== 0) next += hardwarePortCount(l);
    return first;
  });
}

/** Port claims of the demo: the cloud, the broker, the receiver, and each locker's screen, simulator and hardware links. */
function portClaims(settings: DemoSettings, fleet: Fleet): PortClaim[] {
  const consecutive = (base: number, i: number): number => (base === 0 ? 0 : base + i);
  const hardware = hardwarePorts(settings, fleet.lockers);
  const hardwareClaims = fleet.lockers.flatMap((l, i) =>
    Array.from({ length: hardwarePortCount(l) }, (_, k) => ({
      port: consecutive(hardware[i]!, k),
      what: `the simulated hardware link ${k + 1} of locker ${l.id}`,
      setting: `DEMO_HARDWARE_PORT (+${hardware[i]! - settings.hardwarePort + k})`,
    })),
  );
  return [
    { port: settings.httpPort, what: "the cloud's HTTP API", setting: 'PORT' },
    { port: settings.brokerPort, what: 'the embedded MQTT broker', setting: 'MQTT_BROKER_PORT' },
    { port: settings.receiverPort, what: 'the demo marketplace receiver', setting: 'DEMO_RECEIVER_PORT' },
    ...fleet.lockers.flatMap((l, i) => [
      { port: consecutive(settings.screenPort, i), what: `the screen of locker ${l.id}`, setting: `DEMO_SCREEN_PORT (+${i})` },
      { port: consecutive(settings.simPort, i), what: `the simulator of locker ${l.id}`, setting: `DEMO_SIM_PORT (+${i})` },
    ]),
    ...hardwareClaims,
    // The cloud runs the sandbox lockers on this block; it checks it again when it starts them.
    ...blockClaims({ firstPort: settings.sandboxPort, maxLockers: sandboxSettingsSchema.shape.maxLockers.parse(undefined) }),
  ];
}

export async function startDemo(settings: DemoSettings, deps: DemoDeps = {}): Promise<RunningDemo> {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? pino(loggerOptions('demo', 'info'));
  const quiet = logger.child({}, { level: settings.logLevel });
  const dataDir = resolve(settings.dataDir);
  const agentsDir = join(dataDir, 'agents');
  const receiverDir = join(dataDir, 'receiver');
  mkdirSync(agentsDir, { recursive: true });
  mkdirSync(receiverDir, { recursive: true, mode: 0o700 });

  const source = await readFleetFile(settings.fleetFile);
  // The cloud runs the sandbox lockers itself (as it does for `npm run cloud`); the demo runs the others.
  const lockers = source.lockers.filter((l) => l.active && !l.sandbox);
  await checkPorts(portClaims(settings, { ...source, lockers }));

  const stack: (() => Promise<void>)[] = [];
  const unwind = async (): Promise<void> => {
    while (stack.length > 0) {
      try {
        await stack.pop()!();
      } catch (err) {
        logger.error({ err }, 'demo: a part failed to stop');
      }
    }
  };
  try {
    const pki = await makeDemoPki(clock.now());
    const caFile = join(receiverDir, 'ca.pem');
    writeFileSync(caFile, pki.caPem);
    const credentials = receiverCredentials(source);
    const receiver = new DemoReceiver({
      pki,
      port: settings.receiverPort,
      accounts: source.marketplaces.map((m) => ({ marketplaceId: m.id, ...credentials.get(m.id)! })),
      storeFile: join(receiverDir, 'notifications.jsonl'),
      logger: logger.child({ part: 'receiver' }),
      clock,
    });
    await receiver.start();
    stack.push(() => receiver.stop());

    const fleetFile = join(dataDir, 'fleet.json');
    writeDemoFleet(source, fleetFile, { url: (id) => receiver.receiverUrl(id), caFile });
    const cloudSettings = demoCloudSettings(settings, { sqlitePath: join(dataDir, 'cloud.sqlite'), fleetFile, sandboxDir: join(dataDir, 'sandbox') });
    const cloud: RunningCloud = await startCloud(cloudSettings, { clock, logger: quiet.child({ part: 'cloud' }) });
    stack.push(() => cloud.stop());
    const brokerUrl = cloud.brokerUrl;
    if (!brokerUrl) throw new Error('the embedded MQTT broker did not start');

    const rigs: LockerRig[] = [];
    const hardware = hardwarePorts(settings, lockers);
    for (const [i, locker] of lockers.entries()) {
      const rig = await startLockerRig({
        locker,
        mqtt: { url: brokerUrl, password: lockerPassword(locker.id) },
        dataDir: agentsDir,
        screenPort: settings.screenPort === 0 ? 0 : settings.screenPort + i,
        simPort: settings.simPort === 0 ? 0 : settings.simPort + i,
        hardwarePort: hardware[i]!,
        logger: quiet.child({ part: 'agent' }),
      });
      rigs.push(rig);
      stack.push(() => rig.stop());
    }
    const demoLockers: DemoLocker[] = rigs.map((r) => ({
      id: r.locker.id,
      name: r.locker.name,
      timezone: r.locker.timezone,
      screenUrl: r.screenUrl,
      simUrl: r.simUrl!,
      hasScanner: r.hasScanner,
      cellIds: r.locker.cells.map((c) => c.id),
      lockOf: (cellId) => r.lockOf(cellId),
    }));

    const sandboxLockers: DemoSandboxLocker[] = [];
    for (const locker of source.lockers.filter((l) => l.active && l.sandbox)) {
      const rig = await cloud.sandbox?.rigOf(locker.id);
      sandboxLockers.push({ id: locker.id, name: locker.name, screenUrl: rig?.screenUrl ?? null, simUrl: rig?.simUrl ?? null });
    }

    const keys = knownDemoKeys(source);
    let traffic: Traffic | null = null;
    if (settings.traffic) {
      const partnerKey = [...keys.partners.values()][0];
      const sandbox = new Set(source.marketplaces.filter((m) => m.sandbox).map((m) => m.id));
      const marketplaces = [...keys.marketplaces].filter(([id]) => !sandbox.has(id)).map(([id, key]) => ({ id, key }));
      if (!partnerKey || marketplaces.length === 0) {
        logger.warn('demo: no traffic: the fleet file has no marketplace or partner with a documented demo key');
      } else {
        traffic = new Traffic({
          apiUrl: cloud.url,
          receiverUrl: receiver.url,
          caPem: pki.caPem,
          lockers: demoLockers,
          marketplaces,
          partnerKey,
          intervalMs: settings.trafficIntervalMs,
          logger: logger.child({ part: 'traffic' }),
          clock,
          ...(deps.random ? { random: deps.random } : {}),
        });
        await traffic.start();
        const t = traffic;
        stack.push(() => t.stop());
      }
    }

    let stopping: Promise<void> | undefined;
    return {
      apiUrl: cloud.url,
      brokerUrl,
      receiverUrl: receiver.url,
      caFile,
      keys,
      sandboxMarketplaces: source.marketplaces.filter((m) => m.sandbox && m.active).map((m) => m.id),
      lockers: demoLockers,
      sandboxLockers,
      traffic,
      dataDir,
      stop: () => (stopping ??= unwind()),
    };
  } catch (err) {
    await unwind();
    throw err;
  }
}
