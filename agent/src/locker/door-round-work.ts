/**
 * Work queued by commands that the door supervisor's rounds carry out (operator opens, handovers):
 * one drain at a time, started on a round when none is running, and awaited on stop so that no
 * pulse outlives the locker.
 */
import type { Logger } from 'pino';
import type { DoorSupervisor } from './doors.js';

export abstract class DoorRoundWork {
  protected started = false;
  private running: Promise<void> | undefined;
  private readonly onTick = (): void => {
    this.running ??= this.drain()
      .catch((err: unknown) => this.logger.error({ err }, this.failure))
      .finally(() => {
        this.running = undefined;
      });
  };

  constructor(
    private readonly doors: DoorSupervisor,
    protected readonly logger: Logger,
    /** What the log says when a drain fails. */
    private readonly failure: string,
  ) {}

  /** Carries out what is pending; returns early once `started` is false. */
  protected abstract drain(): Promise<void>;

  start(): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.doors.on('tick', this.onTick);
    }
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.doors.off('tick', this.onTick);
    await this.running;
  }
}
