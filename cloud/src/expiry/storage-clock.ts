/**
 * The storage clock as a cloud part: a scheduler job on a cron expression (every minute by
 * default) that expires storage and completes returns, plus `confirmRevocations(lockerId)` for the
 * locker link to call when a locker's applied_cseq advances, so 6 -> 7 follows the locker's
 * confirmation at once.
 */
import type { Logger } from 'pino';
import { ScheduledPart } from '../scheduled-part.js';
import { Scheduler } from '../scheduler.js';
import { completeReturns, expireStorage, type ExpiryDeps } from './expire.js';
import type { StorageClockSettings } from './settings.js';

export interface StorageClockDeps extends ExpiryDeps {
  /** The process's scheduler; a clock of its own on real timers when absent. */
  scheduler?: Scheduler;
}

export interface ClockRun {
  /** Orders moved 3 -> 6. */
  expired: number;
  /** Orders moved 6 -> 7. */
  awaitingReturn: number;
}

export class StorageClock extends ScheduledPart<ClockRun> {
  readonly #deps: ExpiryDeps;
  readonly #settings: StorageClockSettings;
  readonly #log: Logger;

  constructor(deps: StorageClockDeps, settings: StorageClockSettings) {
    super('storage-clock', deps.scheduler ?? new Scheduler({ logger: deps.logger }), { cron: settings.cron });
    this.#deps = deps;
    this.#settings = settings;
    this.#log = deps.logger.child({ part: 'storage-clock' });
  }

  /** One run now (also what the schedule runs); concurrent calls share the run in progress. */
  tick(): Promise<ClockRun> {
    return this.runNow();
  }

  /** Resolves when no run is in progress. */
  idle(): Promise<void> {
    return this.settled();
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

  protected async run(): Promise<ClockRun> {
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

export function createStorageClock(deps: StorageClockDeps, settings: StorageClockSettings): StorageClock {
  return new StorageClock(deps, settings);
}
