/** Deletes expired Idempotency-Keys every `idempotencySweepSeconds`, as a job of the scheduler. */
import { deleteExpiredKeys } from '../repositories/idempotency.js';
import { ScheduledPart } from '../scheduled-part.js';
import type { Scheduler } from '../scheduler.js';
import type { ServiceDeps } from '../services.js';

export class IdempotencyKeySweeper extends ScheduledPart<void> {
  constructor(
    private readonly deps: ServiceDeps,
    scheduler: Scheduler,
  ) {
    super('idempotency-key-sweeper', scheduler, { everyMs: deps.config.idempotencySweepSeconds * 1000 });
  }

  /** One sweep now (also what the schedule runs); resolves when it is done. */
  sweep(): Promise<void> {
    return this.runNow();
  }

  protected async run(): Promise<void> {
    try {
      const deleted = await deleteExpiredKeys(this.deps.cdb.db, this.deps.clock.now());
      if (deleted > 0) this.deps.logger.info({ keys: deleted }, 'deleted expired idempotency keys');
    } catch (err) {
      this.deps.logger.error({ err }, 'deleting expired idempotency keys failed');
    }
  }
}
