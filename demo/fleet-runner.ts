/**
 * The fleet runner: every locker of a fleet as a hardware simulator (its buses, boards and, when
 * the locker has one, its barcode scanner, speaking the real bytes over TCP) plus the locker's
 * agent (its own SQLite file, screen and MQTT link), all in this process. Used by the demo and
 * the link benchmark.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { startAgent, type AgentDeps, type RunningAgent } from '../agent/src/agent.js';
import { parseAgentConfig, type AgentConfigInput } from '../agent/src/config.js';
import type { FleetLocker } from '../cloud/src/fleet/fleet-schema.js';
import { startSimulator, type SimBusOptions, type SimulatorHandle } from '../sim/src/index.js';

/** What a rig needs of a fleet locker: its id, how its cells are wired, whether it has a scanner. */
export type RigLocker = Pick<FleetLocker, 'id' | 'name' | 'timezone' | 'boardFamily' | 'cells'> & {
  equipment: Pick<FleetLocker['equipment'], 'barcodeScanner'>;
};

export interface LockerRigOptions {
  locker: RigLocker;
  /** Broker of the locker link and the locker's password there. */
  mqtt: { url: string; password: string };
  /** Folder of the agents' SQLite files (`<locker id>.sqlite`). */
  dataDir: string;
  /** The locker screen's port; 0 = a free one. */
  screenPort: number;
  /** The simulator's control API port; 0 = a free one, null = no control API. */
  simPort: number | null;
  /**
   * First port of the simulated hardware's TCP links (each bus, then the scanner, on consecutive
   * ports; see hardwarePortCount); 0 or absent = free ones.
   */
  hardwarePort?: number;
  logger: Logger;
  /** Agent settings on top of the rig's own (timings of fast test runs). */
  agent?: Partial<Omit<AgentConfigInput, 'lockerId' | 'buses' | 'scanner' | 'dbPath'>>;
  agentDeps?: Omit<AgentDeps, 'logger'>;
}

export interface LockerRig {
  readonly locker: RigLocker;
  readonly sim: SimulatorHandle;
  readonly agent: RunningAgent;
  readonly screenUrl: string;
  /** The simulator's control API (`SIM_URL` of `npm run sim`), when it has one. */
  readonly simUrl: string | undefined;
  readonly hasScanner: boolean;
  /** Where a cell's lock hangs (for the simulator's door commands). */
  lockOf(cellId: number): { bus: string; board: number; lock: number };
  stop(): Promise<void>;
}

/** The simulated buses a locker's cells need: one per bus name, boards 0 up to the highest address used. */
export function simBusesFor(locker: Pick<RigLocker, 'boardFamily' | 'cells'>): SimBusOptions[] {
  const highest = new Map<string, number>();
  for (const c of locker.cells) highest.set(c.bus, Math.max(highest.get(c.bus) ?? 0, c.board));
  return [...highest].map(([name, top]) => ({ name, family: locker.boardFamily ?? 'kerong-cu48', boards: top + 1 }));
}

/** How many TCP ports a locker's simulated hardware listens on: one per bus, one for a scanner. */
export function hardwarePortCount(locker: FleetLocker): number {
  return simBusesFor(locker).length + (locker.equipment.barcodeScanner ? 1 : 0);
}

export async function startLockerRig(opts: LockerRigOptions): Promise<LockerRig> {
  const { locker } = opts;
  const hasScanner = locker.equipment.barcodeScanner;
  const first = opts.hardwarePort ?? 0;
  const port = (i: number): number => (first === 0 ? 0 : first + i);
  const buses = simBusesFor(locker);
  const sim = await startSimulator({
    buses: buses.map((b, i) => ({ ...b, port: port(i) })),
    scanner: hasScanner ? { suffix: 'crlf', port: port(buses.length) } : false,
    ...(opts.simPort === null ? {} : { http: { port: opts.simPort } }),
  });
  let agent: RunningAgent;
  try {
    const config = parseAgentConfig({
      ...opts.agent,
      lockerId: String(locker.id),
      buses: sim.buses.map((b) => sim.busConfig(b.name)),
      ...(hasScanner ? { scanner: sim.scannerConfig() } : {}),
      mqtt: { ...opts.agent?.mqtt, url: opts.mqtt.url, password: opts.mqtt.password },
      dbPath: join(opts.dataDir, `${locker.id}.sqlite`),
      screen: { ...opts.agent?.screen, host: '127.0.0.1', port: opts.screenPort },
    });
    agent = await startAgent(config, { ...opts.agentDeps, logger: opts.logger.child({ locker: locker.id }) });
  } catch (err) {
    await sim.stop();
    throw err;
  }
  const cells = new Map(locker.cells.map((c) => [c.id, { bus: c.bus, board: c.board, lock: c.lock }]));
  let stopping: Promise<void> | undefined;
  return {
    locker,
    sim,
    agent,
    screenUrl: agent.screenUrl,
    simUrl: sim.httpUrl,
    hasScanner,
    lockOf(cellId) {
      const cell = cells.get(cellId);
      if (!cell) throw new RangeError(`locker ${locker.id} has no cell ${cellId}`);
      return cell;
    },
    stop: () =>
      (stopping ??= (async () => {
        await agent.stop();
        await sim.stop();
      })()),
  };
}
