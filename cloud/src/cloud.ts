/**
 * Composition root of the cloud, as a function: `startCloud(config, deps?)` opens the database,
 * applies the fleet file, starts the HTTP server and the background parts, and returns a handle
 * whose `stop()` undoes it all in reverse. `main.ts` and the tests both use it.
 *
 * Background work is a list of parts with async idempotent start()/stop(); the broker, the locker
 * link, the notification dispatcher and the storage clock join that list (`deps.parts`).
 */
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { loggerOptions } from '../../shared/src/redact.js';
import { systemClock, type Clock } from './clock.js';
import type { CloudConfig } from './config.js';
import { openDatabase, type CloudDatabase } from './db/database.js';
import { FleetError, provisionFleet, readFleetFile, type ProvisionReport } from './fleet/provision.js';
import { ReservationSweeper } from './orders/reservation-release.js';
import { OutboxSignals } from './outbox/signals.js';
import { cryptoRandom, type RandomSource } from './random.js';
import { buildServer, listen } from './server.js';
import type { ServiceDeps } from './services.js';

export interface CloudPart {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface CloudDeps {
  clock?: Clock;
  random?: RandomSource;
  logger?: Logger;
  /** An open database (tests); otherwise opened from the config and closed on stop. */
  database?: CloudDatabase;
  signals?: OutboxSignals;
  /** Further background parts, started after the built-in ones and stopped before them. */
  parts?: ((deps: ServiceDeps) => CloudPart)[];
}

export interface RunningCloud {
  /** Base URL, e.g. http://127.0.0.1:8080 (API under /api/v4 and /api/v1). */
  readonly url: string;
  readonly server: FastifyInstance;
  readonly deps: ServiceDeps;
  /** Loads the fleet file again (operator endpoint and SIGHUP). */
  reloadFleet(): Promise<ProvisionReport>;
  /** The periodic release of reservations not loaded in time: run it now, or wait for a run. */
  readonly reservations: { sweep(): Promise<void>; settled(): Promise<void> };
  stop(): Promise<void>;
}

export async function startCloud(config: CloudConfig, deps: CloudDeps = {}): Promise<RunningCloud> {
  const logger = deps.logger ?? pino(loggerOptions('cloud', config.logLevel));
  const cdb =
    deps.database ??
    (await openDatabase({ databaseUrl: config.databaseUrl, sqlitePath: config.sqlitePath, pgSchema: config.pgSchema, poolSize: config.dbPoolSize }));
  const stack: (() => Promise<void>)[] = [];
  if (!deps.database) stack.push(() => cdb.close());
  const unwind = async (): Promise<void> => {
    while (stack.length > 0) await stack.pop()!();
  };

  try {
    await cdb.migrate();
    const serviceDeps: ServiceDeps = {
      cdb,
      clock: deps.clock ?? systemClock,
      random: deps.random ?? cryptoRandom,
      signals: deps.signals ?? new OutboxSignals(),
      config,
      logger,
    };

    const reloadFleet = async (): Promise<ProvisionReport> => {
      if (!config.fleetFile) throw new FleetError('no fleet file is configured (FLEET_FILE)');
      const fleet = await readFleetFile(config.fleetFile);
      const report = await provisionFleet(cdb, fleet, serviceDeps.clock.now());
      serviceDeps.signals.commandsRecorded(report.configChanged);
      logger.info({ lockers: report.lockers, configChanged: report.configChanged }, 'fleet loaded');
      return report;
    };
    if (config.fleetFile) await reloadFleet();

    const sweeper = new ReservationSweeper(serviceDeps);
    const parts: CloudPart[] = [
      { name: 'reservation-sweeper', start: () => sweeper.start(), stop: () => sweeper.stop() },
      ...(deps.parts ?? []).map((make) => make(serviceDeps)),
    ];
    for (const part of parts) {
      await part.start();
      stack.push(() => part.stop());
    }

    const server = await buildServer({ deps: serviceDeps, reloadFleet, logger, bodyLimit: config.bodyLimitBytes });
    stack.push(() => server.close());
    const url = await listen(server, config.host, config.port);
    logger.info({ url }, 'cloud listening');

    let stopping: Promise<void> | undefined;
    return {
      url,
      server,
      deps: serviceDeps,
      reloadFleet,
      reservations: { sweep: () => sweeper.sweep(), settled: () => sweeper.settled() },
      stop: () => (stopping ??= unwind()),
    };
  } catch (err) {
    await unwind();
    throw err;
  }
}
