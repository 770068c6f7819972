/**
 * Runs tasks one at a time per key (per locker), in arrival order, so a locker's hello, events,
 * acks and command pushes never interleave inside one process. Different keys run concurrently.
 */
export class KeyedQueue<K> {
  readonly #tails = new Map<K, Promise<void>>();
  readonly #onError: (key: K, err: unknown) => void;

  constructor(onError: (key: K, err: unknown) => void) {
    this.#onError = onError;
  }

  run(key: K, task: () => Promise<void>): Promise<void> {
    const prev = this.#tails.get(key) ?? Promise.resolve();
    const next = prev.then(task).catch((err: unknown) => this.#onError(key, err));
    this.#tails.set(key, next);
    void next.then(() => {
      if (this.#tails.get(key) === next) this.#tails.delete(key);
    });
    return next;
  }

  /** Resolves when every task queued so far has finished. */
  async drain(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all([...this.#tails.values()]);
  }
}
