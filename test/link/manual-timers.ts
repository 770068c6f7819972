/** Timers that fire only when the test says so, at the time of a manual clock. */
import type { Timers } from '../../agent/src/sync/index.js';

export class ManualTimers implements Timers {
  readonly #pending = new Map<number, { due: number; fn: () => void }>();
  #next = 1;

  constructor(private readonly clock: { now(): number }) {}

  setTimeout(fn: () => void, ms: number): number {
    const id = this.#next++;
    this.#pending.set(id, { due: this.clock.now() + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }

  /** Timers waiting. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Runs every timer that is due at the clock's time (also ones they set that are due). */
  runDue(): number {
    let ran = 0;
    for (;;) {
      const due = [...this.#pending.entries()].filter(([, t]) => t.due <= this.clock.now()).sort((a, b) => a[1].due - b[1].due)[0];
      if (!due) return ran;
      this.#pending.delete(due[0]);
      due[1].fn();
      ran++;
    }
  }
}
