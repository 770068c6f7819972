/**
 * Fixed-window counters in the database (table rate_counters), so that every cloud process on one
 * PostgreSQL database shares them. A hit is one atomic upsert of the row (key, window start)
 * returning the new count: no read-modify-write race between processes, one round trip. Windows
 * start at multiples of their length (epoch ms), so every process agrees on them. Rows of ended
 * windows are pruned at most once a minute per process.
 */
import type { Clock } from '../clock.js';
import type { CloudDatabase } from '../db/database.js';
import { countHits, pruneCounters } from '../repositories/guard.js';

export interface WindowCount {
  key: string;
  /** Hits in the current window, this one included. */
  hits: number;
  /** Milliseconds until the window ends. */
  ttlMs: number;
}

const PRUNE_EVERY_MS = 60_000;

export class WindowCounters {
  #lastPrune = -Infinity;

  constructor(
    private readonly cdb: CloudDatabase,
    private readonly clock: Clock,
  ) {}

  /** Counts one hit on each key (distinct keys), in one statement; answers in the keys' order. */
  async hit(counts: readonly { key: string; windowMs: number }[]): Promise<WindowCount[]> {
    const now = this.clock.now();
    const windows = counts.map(({ key, windowMs }) => {
      const windowStart = Math.floor(now / windowMs) * windowMs;
      return { key, windowStart, expiresAt: windowStart + windowMs };
    });
    const hits = await countHits(this.cdb.db, windows);
    await this.#pruneNow(now);
    return windows.map((w) => ({ key: w.key, hits: hits.get(w.key) ?? 1, ttlMs: w.expiresAt - now }));
  }

  async #pruneNow(now: number): Promise<void> {
    if (now - this.#lastPrune < PRUNE_EVERY_MS && now >= this.#lastPrune) return;
    this.#lastPrune = now;
    await pruneCounters(this.cdb.db, now);
  }
}
