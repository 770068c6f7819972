/**
 * A part of the cloud that is one scheduler job: started and stopped with the process, and run
 * now when its owner asks (tests, a hook of another part). Subclasses say what one run does.
 */
import type { CloudPart } from './cloud-part.js';
import type { Job, JobSchedule, Scheduler } from './scheduler.js';

export abstract class ScheduledPart<R> implements CloudPart {
  readonly #job: Job<R>;

  protected constructor(
    readonly name: string,
    scheduler: Scheduler,
    schedule: JobSchedule,
  ) {
    this.#job = scheduler.job(name, () => this.run(), schedule);
  }

  start(): Promise<void> {
    this.#job.start();
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return this.#job.stop();
  }

  /** One run now (also what the schedule runs); concurrent calls share the run in progress. */
  protected runNow(): Promise<R> {
    return this.#job.run();
  }

  /** Resolves when no run is in progress. */
  protected settled(): Promise<void> {
    return this.#job.idle();
  }

  /** What one run does. */
  protected abstract run(): Promise<R>;
}
