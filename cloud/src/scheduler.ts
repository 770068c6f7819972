/**
 * The one scheduler of a cloud process. Every background job (the reservation sweep, the storage
 * clock, the notification dispatcher's wake-ups, the locker link's poll and log trim) is a named
 * job here, run on an interval, on a cron expression (node-cron), or when its owner asks
 * (`trigger()` now, `runIn(ms)` later). Runs of one job never overlap; a failed run is logged and
 * the schedule goes on. Tests replace the timers and the cron source to drive jobs by hand.
 */
import cron from 'node-cron';
import type { Logger } from 'pino';
import { runAsPoolCaller, SYSTEM_CALLER } from './db/pool-callers.js';

/** Where the scheduler's time comes from; tests pass manual timers. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** Real timers (the globals at call time, so fake timers apply) that never keep the process alive on their own. */
export const systemTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  setInterval: (fn, ms) => setInterval(fn, ms).unref(),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
};

/** Calls `fire` at every match of a cron expression until stopped. */
export type CronSource = (expression: string, fire: () => void, name: string, log: Logger) => { stop(): Promise<void> };

/** node-cron's own timing (5 or 6 fields, local time of the process); its messages go to the job's log. */
export const nodeCronSource: CronSource = (expression, fire, name, log) => {
  const task = cron.createTask(expression, fire, { name, logger: cronLogger(log) });
  const started = Promise.resolve(task.start()).catch((err: unknown) => log.error({ err }, 'cron task did not start'));
  return {
    stop: async () => {
      await started;
      await task.destroy();
    },
  };
};

function cronLogger(log: Logger) {
  return {
    info: (m: string) => log.debug(m),
    warn: (m: string) => log.warn(m),
    error: (m: string | Error, err?: Error) => log.error({ err: err ?? m }, 'cron task failed'),
    debug: (m: string | Error) => log.debug(String(m)),
  };
}

/** When a job runs by itself; every job also runs when its owner calls run(), trigger() or runIn(). */
export type JobSchedule = { everyMs: number } | { cron: string } | { onDemand: true };

export interface SchedulerDeps {
  logger: Logger;
  timers?: Timers;
  cron?: CronSource;
}

export class Scheduler {
  readonly #deps: Required<SchedulerDeps>;
  readonly #jobs = new Set<Job<unknown>>();

  constructor(deps: SchedulerDeps) {
    this.#deps = { timers: systemTimers, cron: nodeCronSource, ...deps };
  }

  /** A job; it runs by its schedule from start() until stop(). */
  job<T>(name: string, run: () => Promise<T>, schedule: JobSchedule): Job<T> {
    return new Job(name, run, schedule, this.#deps, {
      add: (j) => this.#jobs.add(j),
      delete: (j) => this.#jobs.delete(j),
    });
  }

  /** Names of the jobs started and not yet stopped. */
  get active(): string[] {
    return [...this.#jobs].map((j) => j.name);
  }

  /** Resolves when no started job has a run in progress (tests wait on it after moving the timers). */
  async idle(): Promise<void> {
    await Promise.all([...this.#jobs].map((j) => j.idle()));
  }

  /** Stops every job and waits for the runs in progress. */
  async stop(): Promise<void> {
    await Promise.all([...this.#jobs].map((j) => j.stop()));
  }
}

export class Job<T> {
  readonly name: string;
  readonly #run: () => Promise<T>;
  readonly #schedule: JobSchedule;
  readonly #deps: Required<SchedulerDeps>;
  readonly #registry: { add(job: Job<T>): void; delete(job: Job<T>): void };
  #active = false;
  #running: Promise<T> | undefined;
  #again = false;
  #interval: unknown;
  #delay: unknown;
  #cron: { stop(): Promise<void> } | undefined;

  constructor(
    name: string,
    run: () => Promise<T>,
    schedule: JobSchedule,
    deps: Required<SchedulerDeps>,
    registry: { add(job: Job<T>): void; delete(job: Job<T>): void },
  ) {
    this.name = name;
    this.#run = run;
    this.#schedule = schedule;
    this.#deps = deps;
    this.#registry = registry;
  }

  get active(): boolean {
    return this.#active;
  }

  /** A run is in progress. */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /** Arms the schedule. Idempotent. */
  start(): void {
    if (this.#active) return;
    this.#active = true;
    this.#registry.add(this);
    const s = this.#schedule;
    if ('everyMs' in s) this.#interval = this.#deps.timers.setInterval(() => this.#tick(), s.everyMs);
    else if ('cron' in s) this.#cron = this.#deps.cron(s.cron, () => this.#tick(), this.name, this.#deps.logger.child({ job: this.name }));
  }

  /** Disarms the schedule and waits for the run in progress. Idempotent. */
  async stop(): Promise<void> {
    this.#active = false;
    this.#again = false;
    this.#deps.timers.clearInterval(this.#interval);
    this.#deps.timers.clearTimeout(this.#delay);
    this.#interval = this.#delay = undefined;
    const task = this.#cron;
    this.#cron = undefined;
    await task?.stop();
    await this.#running?.catch(() => undefined);
    this.#registry.delete(this);
  }

  /** One run now; a call during a run shares that run. Works whether or not the job is started. */
  run(): Promise<T> {
    // Background work takes the pool's 'system' share, whichever request asked for the run.
    this.#running ??= runAsPoolCaller(SYSTEM_CALLER, () => this.#run())
      .catch((err: unknown) => {
        this.#deps.logger.error({ err, job: this.name }, 'background job failed');
        throw err;
      })
      .finally(() => {
        this.#running = undefined;
        if (this.#again && this.#active) {
          this.#again = false;
          this.#tick();
        }
      });
    return this.#running;
  }

  /** A run now, or one more right after the run in progress (requests meanwhile coalesce). */
  trigger(): void {
    if (!this.#active) return;
    if (this.#running) this.#again = true;
    else this.#tick();
  }

  /** One triggered run after `ms`, replacing an earlier runIn() that has not fired. */
  runIn(ms: number): void {
    if (!this.#active) return;
    this.#deps.timers.clearTimeout(this.#delay);
    this.#delay = this.#deps.timers.setTimeout(() => {
      this.#delay = undefined;
      this.trigger();
    }, ms);
  }

  /** Resolves when no run is in progress (nor one asked for right after it). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running.catch(() => undefined);
  }

  /** A scheduled moment: skipped while a run is in progress, as with node-cron's noOverlap. */
  #tick(): void {
    if (this.#running) return;
    this.run().catch(() => undefined);
  }

}
