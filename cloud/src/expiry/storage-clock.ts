/**
 * The storage clock as a cloud part: a node-cron task (every minute by default) that expires
 * storage and completes returns, plus `confirmRevocations(lockerId)` for the locker link to call
 * when a locker's applied_cseq advances, so 6 -> 7 follows the locker's confirmation at once.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import { completeReturns, expireStorage, type ExpiryDeps } from './expire.js';
import { loadStorageClockSettings, type StorageClockSettings } from './settings.js';

export interface ClockRun {
  /** Orders moved 3 -> 6. */
  expired: number;
  /** Orders moved 6 -> 7. */
  awaitingReturn: number;
}

function cronLogger(log: Logger) {
  return {
    info: (m: string) => log.debug(m),
    warn: (m: string) => log.warn(m),
    error: (m: string | Error, err?: Error) => log.error({ err: err ?? m }, 'storage clock task failed'),
    debug: (m: string | Error) => log.debug(String(m)),
  };
}

export class StorageClock {
  readonly name = 'storage-clock';
  readonly #deps: ExpiryDeps;
  readonly #settings: StorageClockSettings;
  readonly #log: Logger;
  #task: ScheduledTask | undefined;
  #running: Promise<ClockRun> | undefined;

  constructor(deps: ExpiryDeps, settings: StorageClockSettings) {
    this.#deps = deps;
    this.#settings = settings;
    this.#log = deps.logger.child({ part: 'storage-clock' });
  }

  async start(): Promise<void> {
    if (this.#task) return;
    this.#task = cron.createTask(this.#settings.cron, () => this.tick(), { name: 'storage-clock', noOverlap: true, logger: cronLogger(this.#log) });
    await this.#task.start();
  }

  async stop(): Promise<void> {
    const task = this.#task;
    this.#task = undefined;
    if (task) await task.destroy();
    await this.#running?.catch(() => undefined);
  }

  /** One run now (also what the schedule runs); concurrent calls share the run in progress. */
  tick(): Promise<ClockRun> {
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Resolves when no run is in progress. */
  async idle(): Promise<void> {
    await this.#running;
  }

  /** The locker applied commands up to a new cseq: orders of it in 6 whose revocation it applied move to 7. */
  async confirmRevocations(lockerId: number): Promise<number> {
    try {
      return await completeReturns(this.#deps, this.#settings.returnConfirmSeconds * 1000, lockerId);
    } catch (err) {
      this.#log.error({ err, lockerId }, 'completing returns failed; the next tick retries');
      return 0;
    }
  }

  /** The locker link's `onCommandsApplied` hook: `(lockerId) => storageClock.onCommandsApplied(lockerId)`. */
  async onCommandsApplied(lockerId: number): Promise<void> {
    await this.confirmRevocations(lockerId);
  }

  async #run(): Promise<ClockRun> {
    const run: ClockRun = { expired: 0, awaitingReturn: 0 };
    try {
      run.expired = await expireStorage(this.#deps);
      run.awaitingReturn = await completeReturns(this.#deps, this.#settings.returnConfirmSeconds * 1000);
    } catch (err) {
      this.#log.error({ err }, 'storage clock run failed; the next tick retries');
    }
    return run;
  }
}

export function createStorageClock(deps: ExpiryDeps, settings: StorageClockSettings = loadStorageClockSettings()): StorageClock {
  return new StorageClock(deps, settings);
}
