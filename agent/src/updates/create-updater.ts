/**
 * The updater wired to the agent's parts: the config's `updates` section, the locker (its quiet
 * moments and boards), the link (reports, and whether it is up) and the screen (whether it
 * answers). Read once at start: a CA file that cannot be read stops the agent, naming it.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { Logger } from 'pino';
import { releaseKey } from '../../../shared/src/release.js';
import type { Clock } from '../clock.js';
import { ConfigError, type AgentConfig } from '../config.js';
import type { Locker } from '../locker/locker.js';
import { STORE_SCHEMA } from '../store/database.js';
import type { AgentLink } from '../sync/index.js';
import { ReleaseDir } from './release-dir.js';
import { Updater, type HealthChecks, type RunningRelease } from './updater.js';

/** How fresh the latest round of board reads must be to count as boards answering. */
const BOARDS_FRESH_MS = 10_000;
const SCREEN_TIMEOUT_MS = 3_000;
const CHECK_EVERY_MS = 1_000;
const IDLE_TIMEOUT_MS = 30_000;

export interface UpdaterParts {
  lockerId: string;
  password: string;
  release: RunningRelease;
  clock: Clock;
  logger: Logger;
  locker: Locker;
  link: () => AgentLink | null;
  screenUrl: () => string;
  restart: (reason: string) => void;
}

export function createUpdater(settings: NonNullable<AgentConfig['updates']>, parts: UpdaterParts): Updater {
  let ca: Buffer | undefined;
  if (settings.caFile) {
    try {
      ca = readFileSync(settings.caFile);
    } catch (err) {
      throw new ConfigError(`updates.caFile: cannot read ${settings.caFile}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const { locker, clock } = parts;
  const probe = async (): Promise<HealthChecks> => {
    const answering = locker.doors.boardsAnswering();
    return {
      link: parts.link()?.greeted ?? false,
      boards: clock.now() - answering.at <= BOARDS_FRESH_MS ? answering.boards : [],
      screen: await screenAnswers(parts.screenUrl()),
    };
  };
  return new Updater(
    {
      maxArtifactBytes: settings.maxArtifactBytes,
      healthyForMs: settings.healthyForSeconds * 1000,
      quietForMs: settings.quietForSeconds * 1000,
      checkEveryMs: CHECK_EVERY_MS,
      downloadAttempts: settings.downloadAttempts,
    },
    {
      // The factory install is the launcher's to start; the agent only writes which slot runs next.
      dir: new ReleaseDir(settings.dir, settings.dir),
      running: parts.release,
      keys: settings.publicKeys.map(releaseKey),
      source: {
        url: settings.url,
        ca,
        username: parts.lockerId,
        password: parts.password,
        maxBytesPerSecond: settings.maxBytesPerSecond,
        idleTimeoutMs: IDLE_TIMEOUT_MS,
      },
      software: { node: process.versions.node, storeSchema: STORE_SCHEMA },
      clock,
      logger: parts.logger,
      quiet: (forMs) => locker.quiet(forMs),
      probe,
      send: (report) => parts.link()?.sendUpdate(report) ?? false,
      restart: parts.restart,
    },
  );
}

/** The screen's state answers 200 within a few seconds. */
function screenAnswers(url: string): Promise<boolean> {
  if (!url) return Promise.resolve(false);
  return new Promise((resolve) => {
    const req = request(`${url}/api/state`, { method: 'GET', timeout: SCREEN_TIMEOUT_MS }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
