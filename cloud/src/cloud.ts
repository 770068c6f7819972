/**
 * Composition root of the cloud, as a function: `startCloud(settings, deps?)` opens the database,
 * applies the fleet file, starts the scheduler, the background parts and the HTTP server, and
 * returns a handle whose `stop()` undoes it all in reverse. `main.ts`, the demo, the benchmarks
 * and the tests all use it.
 *
 * Given the process's whole settings (settings.ts) it runs the standard background parts
 * (background.ts: notification dispatcher, storage clock, MQTT); given only the core section
 * (tests) it runs just the reservation sweeper and `deps.parts`. Background parts have async
 * idempotent start()/stop() and run their periodic work as jobs of the one scheduler.
 */
import type { FastifyInstance } from 'fastify';
import { destination, pino, type Logger } from 'pino';
import { loggerOptions } from '../../shared/src/redact.js';
import { CloudBackground, type BackgroundLink } from './background.js';
import { limitConnectionsPerAddress } from './http/connections-per-address.js';
import { systemClock, type Clock } from './clock.js';
import { CONFIG_ENV, type CloudConfig } from './config.js';
import { MQTT_ENV } from './sync/mqtt-settings.js';
import { openDatabase, type CloudDatabase } from './db/database.js';
import { FleetError, provisionFleet, readFleetFile, type ProvisionReport } from './fleet/provision.js';
import type { DependencySources } from './health/dependency-checks.js';
import { createCloudMetrics } from './metrics/cloud-metrics.js';
import { ReservationSweeper } from './orders/reservation-release.js';
import { bridgeNotificationWakeups } from './outbox/cross-process.js';
import { OutboxSignals } from './outbox/signals.js';
import { cryptoRandom, type RandomSource } from './random.js';
import { Scheduler, type CronSource, type Timers } from './scheduler.js';
import { buildServer, listen } from './server.js';
import type { ServiceDeps } from './services.js';
import type { CloudSettings } from './settings.js';
import type { CloudPart, PartDeps } from './cloud-part.js';
import type { SandboxLockers } from './sandbox/sandbox-lockers.js';
import { validatePortBlock } from './sandbox/port-block.js';
import { IdempotencyKeySweeper } from './idempotency/key-sweeper.js';

export type { CloudPart, PartDeps } from './cloud-part.js';

export interface CloudDeps {
  clock?: Clock;
  random?: RandomSource;
  logger?: Logger;
  /** An open database (tests); otherwise opened from the config and closed on stop. */
  database?: CloudDatabase;
  signals?: OutboxSignals;
  /** The scheduler's timers and cron source; tests replace them to run background jobs by hand. */
  timers?: Timers;
  cron?: CronSource;
  /** Hooks and timings of the standard locker link (fault injection); with the whole settings only. */
  link?: BackgroundLink;
  /** Further background parts, started after the built-in ones and stopped before them. */
  parts?: ((deps: PartDeps) => CloudPart)[];
}

export interface RunningCloud {
  /** Base URL, e.g. http://127.0.0.1:8080 (API under /api/v4 and /api/v1). */
  readonly url: string;
  readonly server: FastifyInstance;
  readonly deps: ServiceDeps;
  /** Every background job of the process (reservation sweep, storage clock, dispatcher, link). */
  readonly scheduler: Scheduler;
  /** The embedded MQTT broker's URL (undefined with MQTT_URL, MQTT_ENABLED=false or only the core section). */
  readonly brokerUrl: string | undefined;
  /** The sandbox lockers this process runs (undefined without the standard parts, MQTT or SANDBOX_LOCKERS). */
  readonly sandbox: SandboxLockers | undefined;
  /** Loads the fleet file again (operator endpoint and SIGHUP). */
  reloadFleet(): Promise<ProvisionReport>;
  /** The periodic release of reservations not loaded in time: run it now, or wait for a run. */
  readonly reservations: { sweep(): Promise<void>; settled(): Promise<void> };
  /** Deletes expired Idempotency-Keys now (also run every `idempotencySweepSeconds`). */
  readonly idempotencyKeys: { sweep(): Promise<void> };
  stop(): Promise<void>;
}

function isWhole(settings: CloudSettings | CloudConfig): settings is CloudSettings {
  return 'config' in settings;
}

export async function startCloud(settings: CloudSettings | CloudConfig, deps: CloudDeps = {}): Promise<RunningCloud> {
  const config = isWhole(settings) ? settings.config : settings;
  if (isWhole(settings) && settings.sandbox.lockers) {
    validatePortBlock(settings.sandbox, [
      { port: config.port, setting: CONFIG_ENV.port },
      { port: settings.mqtt.brokerPort, setting: MQTT_ENV.brokerPort },
    ]);
  }
  const background = isWhole(settings) ? new CloudBackground(settings, deps.link) : undefined;
  // Asynchronous stdout: a line written while the previous write is under way joins the next
  // write, so under load many request lines share one system call instead of one each (pino
  // flushes what is left when the process exits).
  const logger = deps.logger ?? pino(loggerOptions('cloud', config.logLevel), destination({ dest: 1, sync: false }));
  const cdb =
    deps.database ??
    (await openDatabase({
      databaseUrl: config.databaseUrl,
      sqlitePath: config.sqlitePath,
      pgSchema: config.pgSchema,
      poolSize: config.dbPoolSize,
      callerShare: config.dbPoolCallerShare,
      callerQueue: config.dbPoolCallerQueue,
    }));
  const stack: (() => Promise<void>)[] = [];
  if (!deps.database) stack.push(() => cdb.close());
  const unwind = async (): Promise<void> => {
    while (stack.length > 0) await stack.pop()!();
  };

  const scheduler = new Scheduler({ logger, ...(deps.timers ? { timers: deps.timers } : {}), ...(deps.cron ? { cron: deps.cron } : {}) });
  stack.push(() => scheduler.stop());

  try {
    await cdb.migrate();
    const clock = deps.clock ?? systemClock;
    const serviceDeps: ServiceDeps = {
      cdb,
      clock,
      startedAt: clock.now(),
      random: deps.random ?? cryptoRandom,
      signals: deps.signals ?? new OutboxSignals(),
      config,
      logger,
      metrics: createCloudMetrics(),
    };
    const wakeups = bridgeNotificationWakeups(cdb, config, serviceDeps.signals, logger);
    if (wakeups) {
      stack.push(() => wakeups.stop());
      await wakeups.ready();
    }

    const reloadFleet = async (): Promise<ProvisionReport> => {
      if (!config.fleetFile) throw new FleetError('no fleet file is configured (FLEET_FILE)');
      const fleet = await readFleetFile(config.fleetFile);
      const report = await provisionFleet(cdb, fleet, serviceDeps.clock.now());
      serviceDeps.signals.commandsRecorded(report.configChanged);
      logger.info({ lockers: report.lockers, configChanged: report.configChanged }, 'fleet loaded');
      background?.sandboxLockers?.refresh().catch((err: unknown) => logger.error({ err }, 'sandbox lockers: refresh after the reload failed'));
      return report;
    };
    if (config.fleetFile) await reloadFleet();

    const partDeps: PartDeps = { ...serviceDeps, scheduler };
    const sweeper = new ReservationSweeper(serviceDeps, scheduler);
    const keySweeper = new IdempotencyKeySweeper(serviceDeps, scheduler);
    const parts: CloudPart[] = [
      { name: 'reservation-sweeper', start: () => sweeper.start(), stop: () => sweeper.stop() },
      { name: 'idempotency-key-sweeper', start: () => keySweeper.start(), stop: () => keySweeper.stop() },
      ...[...(background?.parts() ?? []), ...(deps.parts ?? [])].map((make) => make(partDeps)),
    ];
    for (const part of parts) {
      await part.start();
      stack.push(() => part.stop());
    }

    // A configured fleet file is loaded above or the start fails; without one the database is the fleet.
    const dependencies: DependencySources = {
      cdb,
      brokerConnected: () => background?.brokerConnected(),
      fleet: () => ({ source: config.fleetFile ? 'file' : 'database', loaded: true }),
    };
    serviceDeps.metrics.fleetState.watch({ ...dependencies, clock: serviceDeps.clock });
    serviceDeps.metrics.updates.watch(cdb);
    const sandbox = background?.sandboxLockers;
    const timeoutMs = (isWhole(settings) ? settings.sandbox.timeoutSeconds : 60) * 1000;
    const server = await buildServer({ deps: serviceDeps, reloadFleet, dependencies, logger, bodyLimit: config.bodyLimitBytes, sandbox: { lockers: sandbox, timeoutMs } });
    stack.push(() => server.close());
    // No caller holds every socket of the process (each costs a file descriptor and memory).
    server.server.maxConnections = config.httpMaxConnections;
    // Nor one address (http/connections-per-address.ts).
    limitConnectionsPerAddress(server.server, config.httpMaxConnectionsPerAddress, () => serviceDeps.metrics.guard.refused('connections_per_address'));
    const url = await listen(server, config.host, config.port);
    logger.info({ url }, 'cloud listening');

    let stopping: Promise<void> | undefined;
    return {
      url,
      server,
      deps: serviceDeps,
      scheduler,
      get brokerUrl() {
        return background?.brokerUrl;
      },
      sandbox,
      reloadFleet,
      reservations: { sweep: () => sweeper.sweep(), settled: () => sweeper.settled() },
      idempotencyKeys: { sweep: () => keySweeper.sweep() },
      stop: () => (stopping ??= unwind()),
    };
  } catch (err) {
    await unwind();
    throw err;
  }
}
