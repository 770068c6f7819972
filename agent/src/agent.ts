/**
 * Composition root of the locker agent: store, hardware, locker flows, the locker link to the
 * cloud (when `mqtt` is configured) and screen, started in that order and stopped in reverse. Each
 * part is a start/stop pair.
 */
import pino, { type LevelWithSilentOrString, type Logger } from 'pino';
import { loggerOptions } from '../../shared/src/redact.js';
import type { Snapshot } from '../../shared/src/protocol.js';
import { systemClock, type Clock } from './clock.js';
import { applySnapshot } from './commands/index.js';
import type { AgentConfig } from './config.js';
import { createLockHardware, createScanner, type LockHardware, type ScannerReader } from './hw/index.js';
import { Locker } from './locker/locker.js';
import { ScreenServer } from './screen/server.js';
import { openStore, type LockerStore } from './store/index.js';
import { sweepStore } from './store/retention.js';
import { AgentLink, type LinkHooks, type Timers } from './sync/index.js';
import { createUpdater } from './updates/create-updater.js';
import type { RunningRelease, Updater } from './updates/updater.js';
import { HealthReporter } from './vitals/health-reporter.js';
import { AGENT_VERSION, AgentVitals } from './vitals/vitals.js';

export interface AgentDeps {
  clock?: Clock;
  logger?: Logger;
  /** Level of the default logger (the caller's settings, e.g. LOG_LEVEL); info when not given. */
  logLevel?: LevelWithSilentOrString;
  /** Defaults to the drivers for `config.buses`. */
  hardware?: LockHardware;
  /** Defaults to the reader for `config.scanner`, if any. */
  scanner?: ScannerReader | null;
  /**
   * Intent to start from when there is no cloud link (a demo, a locker run against the simulator):
   * applied like a snapshot from the cloud, so an older one than the store has is ignored.
   */
  snapshot?: Snapshot;
  /** Observation and fault-injection points of the locker link, and the timer of its resends. */
  link?: { hooks?: LinkHooks; timers?: Timers };
  /** What runs (version, slot of the releases directory); the package version, not updatable, when absent. */
  release?: RunningRelease;
  /** Stops the process for its supervisor to start the switched version (main.ts); updates are refused without it. */
  restart?: (reason: string) => void;
}

export interface RunningAgent {
  screenUrl: string;
  store: LockerStore;
  locker: Locker;
  /** The locker link; null without `mqtt` in the config. */
  link: AgentLink | null;
  /** The agent's vital signs (its /metrics) and their reports to the cloud (null without a link). */
  vitals: AgentVitals;
  health: HealthReporter | null;
  /** Software updates (null without `updates` in the config). */
  updater: Updater | null;
  stop(): Promise<void>;
}

interface Part {
  name: string;
  start(): Promise<unknown>;
  stop(): Promise<void>;
}

export async function startAgent(config: AgentConfig, deps: AgentDeps = {}): Promise<RunningAgent> {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? pino(loggerOptions('agent', deps.logLevel ?? 'info'));
  const store = openStore(config.dbPath, clock);
  if (deps.snapshot) {
    const r = applySnapshot(store, deps.snapshot);
    logger.info({ status: r.status, appliedCseq: r.appliedCseq }, 'start-up snapshot');
  }
  const release: RunningRelease = deps.release ?? { version: AGENT_VERSION, slot: undefined };
  const vitals = new AgentVitals(config.lockerId, () => clock.now(), release.version);
  const hardware = deps.hardware ?? createLockHardware(config.buses, logger.child({ part: 'hw' }), { observer: vitals });
  const scanner = deps.scanner !== undefined ? deps.scanner : config.scanner ? createScanner(config.scanner, logger.child({ part: 'scanner' })) : null;
  const locker = new Locker(store, hardware, clock, logger, config);
  // The link is made below; the screen asks it at each answer.
  const screen = new ScreenServer(locker.kiosk, config.screen, logger, vitals.registry, () => link?.connected);
  let screenUrl = '';
  let link: AgentLink | null = null;
  const updater =
    config.updates && config.mqtt
      ? createUpdater(config.updates, {
          lockerId: config.lockerId,
          password: config.mqtt.password,
          release: deps.restart ? release : { ...release, slot: undefined },
          clock,
          logger: logger.child({ part: 'updates' }),
          locker,
          link: () => link,
          screenUrl: () => screenUrl,
          restart: deps.restart ?? (() => undefined),
        })
      : null;
  link = config.mqtt
    ? new AgentLink(
        { lockerId: config.lockerId, ...config.mqtt },
        { store, clock, logger: logger.child({ part: 'link' }), version: release.version, ...(updater ? { updates: updater } : {}), ...deps.link },
      )
    : null;
  const health = link && config.mqtt ? new HealthReporter(vitals, link, config.mqtt.healthReportSeconds) : null;
  vitals.watch({
    outboxDepth: () => Math.max(0, store.outbox.lastDseq() - store.outbox.ackedDseq()),
    link: () => link && { connected: link.connected, reconnects: link.reconnects },
  });
  const offEvents = store.outbox.onEvent((body) => vitals.event(body));
  const onScan = (barcode: string): void => {
    vitals.scan();
    void locker.kiosk.scan(barcode);
  };

  const parts: Part[] = [
    { name: 'hardware', start: () => hardware.start(), stop: () => hardware.stop() },
    ...(scanner
      ? [
          {
            name: 'scanner',
            start: async () => {
              scanner.on('scan', onScan);
              await scanner.start();
            },
            stop: async () => {
              scanner.off('scan', onScan);
              await scanner.stop();
            },
          },
        ]
      : []),
    { name: 'locker', start: () => locker.start(), stop: () => locker.stop() },
    retentionPart(store, config.retention, clock, logger),
    ...(link ? [{ name: 'link', start: () => link.start(), stop: () => link.stop() }] : []),
    ...(health ? [{ name: 'health-reports', start: () => health.start(), stop: () => health.stop() }] : []),
    {
      name: 'screen',
      start: async () => {
        screenUrl = await screen.start();
      },
      stop: () => screen.stop(),
    },
    ...(updater ? [{ name: 'updates', start: () => updater.start(), stop: () => updater.stop() }] : []),
  ];

  const started: Part[] = [];
  const stopAll = async (): Promise<void> => {
    for (const part of started.splice(0).reverse()) {
      try {
        await part.stop();
      } catch (err) {
        logger.error({ err, part: part.name }, 'stop failed');
      }
    }
    offEvents();
    store.close();
  };
  try {
    for (const part of parts) {
      await part.start();
      started.push(part);
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  logger.info({ lockerId: config.lockerId, screenUrl, version: release.version }, 'agent started');
  let stopping: Promise<void> | undefined;
  return {
    screenUrl,
    store,
    locker,
    link,
    vitals,
    health,
    updater,
    stop: () => (stopping ??= stopAll()),
  };
}

/** The store's retention sweep on an interval (and once at start, for a locker that was off long). */
function retentionPart(store: LockerStore, settings: AgentConfig['retention'], clock: Clock, logger: Logger): Part {
  let timer: NodeJS.Timeout | undefined;
  const sweep = (): void => {
    try {
      const result = sweepStore(store, settings, clock.now());
      if (result.events > 0) logger.info({ part: 'retention', ...result }, 'retention sweep');
    } catch (err) {
      logger.error({ err, part: 'retention' }, 'retention sweep failed');
    }
  };
  return {
    name: 'retention',
    start: () => {
      sweep();
      timer = setInterval(sweep, settings.sweepMs).unref();
      return Promise.resolve();
    },
    stop: () => {
      clearInterval(timer);
      return Promise.resolve();
    },
  };
}
