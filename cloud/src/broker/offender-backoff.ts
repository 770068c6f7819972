/**
 * Back-off for a client that keeps breaking a bound (an oversized packet): each offence closes
 * its connection, and its next connections are refused for a time that doubles with every
 * offence (1 s, 2 s, 4 s ... up to MAX_BACKOFF_MS). An hour without offence forgives it.
 * Bounded itself: at most MAX_OFFENDERS clients are remembered, the oldest forgotten first.
 */
const FIRST_BACKOFF_MS = 1_000;
export const MAX_BACKOFF_MS = 10 * 60_000;
const FORGIVE_AFTER_MS = 60 * 60_000;
const MAX_OFFENDERS = 10_000;

interface Record {
  offences: number;
  lastAt: number;
  until: number;
}

export class OffenderBackoff {
  readonly #now: () => number;
  readonly #offenders = new Map<string, Record>();

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Counts an offence; returns how long the client's connections are refused from now, ms. */
  offended(clientId: string): number {
    const now = this.#now();
    const prior = this.#offenders.get(clientId);
    const offences = prior && now - prior.lastAt < FORGIVE_AFTER_MS ? prior.offences + 1 : 1;
    const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.min(offences - 1, 20));
    this.#offenders.delete(clientId);
    this.#offenders.set(clientId, { offences, lastAt: now, until: now + backoff });
    if (this.#offenders.size > MAX_OFFENDERS) this.#offenders.delete(this.#offenders.keys().next().value!);
    return backoff;
  }

  /** Milliseconds the client must still wait before it may connect (0: it may). */
  waitFor(clientId: string): number {
    const r = this.#offenders.get(clientId);
    return r ? Math.max(0, r.until - this.#now()) : 0;
  }
}
