/**
 * Fixed-window counters in the database (table rate_counters), so that every cloud process on one
 * PostgreSQL database shares them. A hit is one atomic upsert of the row (key, window start)
 * returning the new count: no read-modify-write race between processes, one round trip. Windows
 * start at multiples of their length (epoch ms), so every process agrees on them. Rows of ended
 * windows are pruned at most once a minute per process.
 *
 * Hits that arrive while an upsert is under way wait for it and then go together in the next one,
 * which adds them all at once: under load one statement (and on SQLite one commit) counts many
 * requests instead of one each. Every hit is still counted before its request goes on, and each
 * request gets its own place in the count (the new total minus the hits queued after it).
 */
import type { Clock } from '../clock.js';
import type { CloudDatabase } from '../db/database.js';
import { sharingCommit } from '../db/transaction.js';
import { countHits, pruneCounters, windowHitId, type WindowHit } from '../repositories/guard.js';

export interface WindowCount {
  key: string;
  /** Hits in the current window, this one included. */
  hits: number;
  /** Milliseconds until the window ends. */
  ttlMs: number;
}

const PRUNE_EVERY_MS = 60_000;

interface QueuedHits {
  windows: WindowHit[];
  resolve(hits: number[]): void;
  reject(err: unknown): void;
}

export class WindowCounters {
  #lastPrune = -Infinity;
  #queue: QueuedHits[] = [];
  #counting = false;

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
    const hits = await new Promise<number[]>((resolve, reject) => {
      this.#queue.push({ windows, resolve, reject });
      this.#next();
    });
    await this.#pruneNow(now);
    return windows.map((w, i) => ({ key: w.key, hits: hits[i]!, ttlMs: w.expiresAt - now }));
  }

  /** Starts counting what is queued unless an upsert is under way (it starts the next when done). */
  #next(): void {
    if (this.#counting || this.#queue.length === 0) return;
    this.#counting = true;
    const batch = this.#queue.splice(0);
    void this.#count(batch).finally(() => {
      this.#counting = false;
      this.#next();
    });
  }

  /** One upsert for the whole batch; never rejects (each request gets the error). */
  async #count(batch: readonly QueuedHits[]): Promise<void> {
    const rows = new Map<string, WindowHit & { count: number }>();
    // Each request's place among the batch's hits of the same (key, window), from 1.
    const places = batch.map((q) =>
      q.windows.map((w) => {
        const id = windowHitId(w.key, w.windowStart);
        let row = rows.get(id);
        if (!row) rows.set(id, (row = { ...w, count: 0 }));
        return ++row.count;
      }),
    );
    try {
      const totals = await sharingCommit(this.cdb, (db) => countHits(db, [...rows.values()]));
      batch.forEach((q, i) =>
        q.resolve(
          q.windows.map((w, j) => {
            const row = rows.get(windowHitId(w.key, w.windowStart))!;
            return (totals.get(windowHitId(w.key, w.windowStart)) ?? row.count) - row.count + places[i]![j]!;
          }),
        ),
      );
    } catch (err) {
      for (const q of batch) q.reject(err);
    }
  }

  async #pruneNow(now: number): Promise<void> {
    if (now - this.#lastPrune < PRUNE_EVERY_MS && now >= this.#lastPrune) return;
    this.#lastPrune = now;
    await pruneCounters(this.cdb.db, now);
  }
}
