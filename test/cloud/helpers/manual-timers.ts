/** The scheduler's timers, fired only when the test moves its own time forward. */
import type { Timers } from '../../../cloud/src/scheduler.js';

interface Pending {
  due: number;
  every: number | null;
  fn: () => void;
}

export class ManualSchedulerTimers implements Timers {
  readonly #pending = new Map<number, Pending>();
  #next = 1;
  #now = 0;

  setTimeout(fn: () => void, ms: number): number {
    return this.#add({ due: this.#now + ms, every: null, fn });
  }

  setInterval(fn: () => void, ms: number): number {
    return this.#add({ due: this.#now + ms, every: ms, fn });
  }

  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }

  clearInterval(handle: unknown): void {
    this.#pending.delete(handle as number);
  }

  /** Timers (and intervals) armed. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Moves time forward by `ms`, firing what falls due in order (intervals re-armed). */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = [...this.#pending.entries()].filter(([, t]) => t.due <= end).sort((a, b) => a[1].due - b[1].due)[0];
      if (!due) break;
      const [id, timer] = due;
      this.#now = timer.due;
      if (timer.every === null) this.#pending.delete(id);
      else timer.due += timer.every;
      timer.fn();
    }
    this.#now = end;
  }

  #add(p: Pending): number {
    const id = this.#next++;
    this.#pending.set(id, p);
    return id;
  }
}
