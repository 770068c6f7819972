/**
 * Fair checkout of a shared pool of `capacity` slots (the PostgreSQL connections): callers (a
 * marketplace, an operator, the locker link, background work) wait in queues of their own, served
 * round-robin as slots free, and no caller holds more than `share` slots at once, so one caller's
 * burst queues behind its own share while every other caller still gets a slot at its turn.
 * A caller may have at most `queueMax` bounded checkouts waiting (API requests that have not
 * started); beyond it such a checkout is refused at once (CheckoutQueueFull) rather than queued
 * without end. Unbounded ones (work under way, internal work) wait whatever the count.
 * Plain FIFO pools (pg's own, p-limit, p-queue) serve one queue in arrival order: a burst of one
 * caller puts everyone else behind it.
 */

export interface FairCheckoutOptions {
  /** Slots in all. */
  capacity: number;
  /** Slots one caller may hold at once (1 to `capacity`). */
  share: number;
  /** Bounded checkouts one caller may have waiting. */
  queueMax: number;
}

/** Returns the slot; calling it again does nothing. */
export type ReleaseSlot = () => void;

export class CheckoutQueueFull extends Error {
  override readonly name = 'CheckoutQueueFull';
  constructor(readonly caller: string) {
    super(`the pool queue of ${caller} is full`);
  }
}

interface CallerState {
  held: number;
  waiting: { grant: (release: ReleaseSlot) => void; bounded: boolean }[];
  /** Of them, bounded. */
  boundedWaiting: number;
}

export class FairCheckout {
  readonly #opts: FairCheckoutOptions;
  readonly #callers = new Map<string, CallerState>();
  /** Callers with checkouts waiting, in turn order: the first eligible one is served next. */
  readonly #turns = new Map<string, CallerState>();
  #held = 0;

  constructor(opts: FairCheckoutOptions) {
    if (!(opts.capacity >= 1 && opts.share >= 1 && opts.share <= opts.capacity && opts.queueMax >= 0)) {
      throw new Error(`invalid fair checkout bounds: ${JSON.stringify(opts)}`);
    }
    this.#opts = opts;
  }

  /** Slots held now, in all and by `caller`; checkouts waiting, in all. */
  stats(caller?: string): { held: number; waiting: number; callerHeld: number; callerWaiting: number } {
    let waiting = 0;
    for (const s of this.#turns.values()) waiting += s.waiting.length;
    const c = caller === undefined ? undefined : this.#callers.get(caller);
    return { held: this.#held, waiting, callerHeld: c?.held ?? 0, callerWaiting: c?.waiting.length ?? 0 };
  }

  /**
   * A slot for `caller`, at its turn. `bounded`: refuse (CheckoutQueueFull) when the caller's
   * queue is full. `nested`: the caller already holds a slot in this same piece of work and
   * needs another before it can give the first back; it is granted at once, beyond the share and
   * the capacity, since waiting could wait forever on itself (the pool below queues it if full).
   */
  acquire(caller: string, opts: { bounded: boolean; nested?: boolean }): Promise<ReleaseSlot> {
    const state = this.#stateOf(caller);
    if (opts.nested || (this.#held < this.#opts.capacity && state.held < this.#opts.share)) {
      return Promise.resolve(this.#grant(caller, state));
    }
    if (opts.bounded && state.boundedWaiting >= this.#opts.queueMax) {
      this.#forgetIfIdle(caller, state);
      return Promise.reject(new CheckoutQueueFull(caller));
    }
    return new Promise<ReleaseSlot>((resolve) => {
      state.waiting.push({ grant: resolve, bounded: opts.bounded });
      if (opts.bounded) state.boundedWaiting++;
      if (!this.#turns.has(caller)) this.#turns.set(caller, state);
    });
  }

  #stateOf(caller: string): CallerState {
    let state = this.#callers.get(caller);
    if (!state) this.#callers.set(caller, (state = { held: 0, waiting: [], boundedWaiting: 0 }));
    return state;
  }

  #grant(caller: string, state: CallerState): ReleaseSlot {
    state.held++;
    this.#held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.held--;
      this.#held--;
      this.#serve();
      this.#forgetIfIdle(caller, state);
    };
  }

  /** Hands free slots to the waiting callers below their share, one each in turn. */
  #serve(): void {
    while (this.#held < this.#opts.capacity) {
      let served = false;
      for (const [caller, state] of this.#turns) {
        if (state.held >= this.#opts.share) continue;
        const next = state.waiting.shift()!;
        if (next.bounded) state.boundedWaiting--;
        // Served: to the end of the turns (if it still waits), so the others go first next time.
        this.#turns.delete(caller);
        if (state.waiting.length > 0) this.#turns.set(caller, state);
        next.grant(this.#grant(caller, state));
        served = true;
        break;
      }
      if (!served) return;
    }
  }

  #forgetIfIdle(caller: string, state: CallerState): void {
    if (state.held === 0 && state.waiting.length === 0 && this.#callers.get(caller) === state) this.#callers.delete(caller);
  }
}
