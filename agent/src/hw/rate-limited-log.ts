import type { Logger } from 'pino';

/**
 * Line noise can arrive thousands of times a second; log the first occurrence of each kind, then
 * at most one summary line per interval with the count that was held back.
 */
export class RateLimitedLog {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  warn(key: string, fields: Record<string, unknown>, msg: string): void {
    const t = this.now();
    const entry = this.last.get(key);
    if (entry && t - entry.at < this.intervalMs) {
      entry.suppressed += 1;
      return;
    }
    this.logger.warn({ ...fields, suppressed: entry?.suppressed ?? 0 }, msg);
    this.last.set(key, { at: t, suppressed: 0 });
  }
}
