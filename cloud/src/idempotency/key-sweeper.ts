/** Deletes expired Idempotency-Keys every `idempotencySweepSeconds`, as a job of the scheduler. */
import { deleteExpiredKeys } from '../repositories/idempotency.js';
import type { Job, Scheduler } from '../scheduler.js';
import type { ServiceDeps } from '../services.js';

export class IdempotencyKeySweeper {
  readonly #job: Job<void>;

  constructor(
    private readonly deps: ServiceDeps,
    scheduler: Scheduler,
  ) {
    this.#job = scheduler.job('idempotency-key-sweeper', () => this.#sweep(), { everyMs: deps.config.idempotencySweepSeconds * 1000 });
  }

  start(): Promise<void> {
    this.#job.start();
    return Promise.resolve();
  }

  /** One sweep now (also what the schedule runs); resolves when it is done. */
  sweep(): Promise<void> {
    return this.#job.run();
  }

  async #sweep(): Promise<void> {
    try {
      const deleted = await deleteExpiredKeys(this.deps.cdb.db, this.deps.clock.now());
      if (deleted > 0) this.deps.logger.info({ keys: deleted }, 'deleted expired idempotency keys');
    } catch (err) {
      this.deps.logger.error({ err }, 'deleting expired idempotency keys failed');
    }
  }

  async stop(): Promise<void> {
    await this.#job.stop();
  }
}
