/**
 * Writes that many requests make and none waits for (records, not facts), coalesced: while one
 * batch is being written, what arrives queues and goes in the next batch, so under load one
 * statement or two write many rows, and alone a row is written at once, as before. No timer: the
 * batches are as large as the load makes them.
 */
import { runAsPoolCaller, SYSTEM_CALLER } from './pool-callers.js';

export class CoalescedWrites<T> {
  #queue: T[] = [];
  #writing: Promise<void> | undefined;

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    /** A failed batch is reported here, never thrown at the callers (their answers are out). */
    private readonly failed: (err: unknown, batch: readonly T[]) => void,
    private readonly maxBatch = 500,
  ) {}

  /** Queues one item; resolves once the batch holding it was written (or failed and was reported). */
  add(item: T): Promise<void> {
    this.#queue.push(item);
    return this.#drain();
  }

  /** Resolves when everything queued so far has been written. */
  flush(): Promise<void> {
    return this.#drain();
  }

  #drain(): Promise<void> {
    if (this.#writing) return this.#writing;
    if (this.#queue.length === 0) return Promise.resolve();
    // #run awaits its first write before it can end, so this assignment comes first.
    // One batch for many requests: the pool's 'system' share, not the request's that started it.
    this.#writing = runAsPoolCaller(SYSTEM_CALLER, () => this.#run());
    return this.#writing;
  }

  async #run(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.maxBatch);
        try {
          await this.write(batch);
        } catch (err) {
          this.failed(err, batch);
        }
      }
    } finally {
      // In the same turn as the last emptiness check: an item added after it starts a new run.
      this.#writing = undefined;
    }
  }
}
