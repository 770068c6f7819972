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
 *
 * A hit that names its limit (`max`) may be counted in the process instead, off the database's
 * path, the way Envoy puts a local limit in front of a global one: while the count this process
 * knows (the database's total at its last upsert, plus its own hits not yet written) stays at or
 * below half the limit, and this process holds fewer than PENDING_SHARE of the limit unwritten.
 * Those hits are written by the next upsert, which starts as soon as none is under way. Nearer
 * the limit every hit is counted in the database before its answer, as above. So P processes on
 * one database admit at most max + P * ⌈5 % of max⌉ per window: each can hold only that many
 * admitted hits unwritten (counted against the total it last knew) when another's upsert takes
 * the shared total to the limit (docs/decisions.md).
 */
import type { Clock } from '../clock.js';
import type { CloudDatabase } from '../db/database.js';
import { sharingCommit } from '../db/transaction.js';
import { countHits, pruneCounters, windowHitId, type WindowHit } from '../repositories/guard.js';
import { runAsPoolCaller, SYSTEM_CALLER } from '../db/pool-callers.js';

export interface WindowCount {
  key: string;
  /** Hits in the current window, this one included. */
  hits: number;
  /** Milliseconds until the window ends. */
  ttlMs: number;
}

const PRUNE_EVERY_MS = 60_000;
/** Counted in the process only while the known count is at most this share of the limit. */
export const LOCAL_SHARE = 0.5;
/** At most this share of the limit (and at least one hit) held unwritten by one process. */
export const PENDING_SHARE = 0.05;
/** Hits counted in the process are written at most this long after (one upsert for all of them). */
export const MERGE_EVERY_MS = 100;
/** Windows remembered at most (the keys of one window: marketplaces, partners, client addresses). */
const KNOWN_AT_MOST = 100_000;

interface QueuedHits {
  windows: WindowHit[];
  resolve(hits: number[]): void;
  reject(err: unknown): void;
}

/** What this process knows of one (key, window). */
interface Known {
  /** The database's total at this process's last upsert of it. */
  total: number;
  /** Hits counted here and not yet written. */
  pending: number;
  expiresAt: number;
}

export class WindowCounters {
  #lastPrune = -Infinity;
  #queue: QueuedHits[] = [];
  /** The upsert under way. */
  #running: Promise<void> | undefined;
  readonly #known = new Map<string, Known>();
  /** Hits counted in the process and not yet written, over all windows, and those windows. */
  #pending = 0;
  readonly #unwritten = new Set<string>();
  #mergeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly cdb: CloudDatabase,
    private readonly clock: Clock,
  ) {}

  /**
   * Counts one hit on each key (distinct keys), in one statement; answers in the keys' order.
   * With `max` on every key, hits well below their limits are counted in the process (see above).
   */
  async hit(counts: readonly { key: string; windowMs: number; max?: number }[]): Promise<WindowCount[]> {
    const now = this.clock.now();
    const windows = counts.map(({ key, windowMs }) => {
      const windowStart = Math.floor(now / windowMs) * windowMs;
      return { key, windowStart, expiresAt: windowStart + windowMs };
    });
    const known = windows.map((w) => this.#knownOf(w));
    if (counts.every((c, i) => c.max !== undefined && countsLocally(known[i]!, c.max))) {
      for (const k of known) k.pending++;
      for (const w of windows) this.#unwritten.add(windowHitId(w.key, w.windowStart));
      this.#pending += known.length;
      this.#next();
      return windows.map((w, i) => ({ key: w.key, hits: known[i]!.total + known[i]!.pending, ttlMs: w.expiresAt - now }));
    }
    const hits = await new Promise<number[]>((resolve, reject) => {
      this.#queue.push({ windows, resolve, reject });
      this.#next();
    });
    return windows.map((w, i) => ({ key: w.key, hits: hits[i]!, ttlMs: w.expiresAt - now }));
  }

  #merge(): void {
    this.#mergeTimer = undefined;
    if (!this.#running && this.#pending > 0) this.#start();
  }

  /** Writes the hits counted in the process now (a process that stops). */
  async flush(): Promise<void> {
    clearTimeout(this.#mergeTimer);
    this.#mergeTimer = undefined;
    await this.#running;
    if (this.#pending > 0 || this.#queue.length > 0) this.#start();
    await this.#running;
  }

  #knownOf(w: WindowHit): Known {
    const id = windowHitId(w.key, w.windowStart);
    let known = this.#known.get(id);
    if (!known) {
      if (this.#known.size >= KNOWN_AT_MOST) this.#forgetWritten();
      this.#known.set(id, (known = { total: 0, pending: 0, expiresAt: w.expiresAt }));
    }
    return known;
  }

  #forgetWritten(): void {
    for (const [id, k] of this.#known) if (k.pending === 0) this.#known.delete(id);
  }

  /**
   * Starts counting what is queued unless an upsert is under way (it starts the next when done);
   * hits counted in the process alone wait for the next merge, so under any load they cost one
   * upsert per MERGE_EVERY_MS, not one per request.
   */
  #next(): void {
    if (this.#running) return;
    if (this.#queue.length === 0) {
      if (this.#pending > 0) this.#mergeTimer ??= setTimeout(() => this.#merge(), MERGE_EVERY_MS).unref();
      return;
    }
    this.#start();
  }

  /** One upsert of what is queued and pending; the next starts when it is done. */
  #start(): void {
    // One upsert for many callers' hits: the pool's 'system' share, not the request's that started it.
    this.#running = runAsPoolCaller(SYSTEM_CALLER, () => this.#count(this.#queue.splice(0))).finally(() => {
      this.#running = undefined;
      this.#next();
    });
  }

  /**
   * One upsert for the whole batch and the hits counted in the process so far; never rejects
   * (each request gets the error; hits counted here stay pending for the next upsert).
   */
  async #count(batch: readonly QueuedHits[]): Promise<void> {
    const rows = new Map<string, WindowHit & { count: number }>();
    // Hits counted in the process come first in their window's count.
    const taken = new Map<string, number>();
    for (const id of this.#unwritten) {
      const k = this.#known.get(id);
      if (!k || k.pending === 0) continue;
      const sep = id.indexOf(':');
      rows.set(id, { key: id.slice(sep + 1), windowStart: Number(id.slice(0, sep)), expiresAt: k.expiresAt, count: k.pending });
      taken.set(id, k.pending);
    }
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
      const now = this.clock.now();
      const prune = this.#pruneDue(now);
      const totals = await sharingCommit(this.cdb, async (db) => {
        const counted = await countHits(db, [...rows.values()]);
        if (prune) await pruneCounters(db, now);
        return counted;
      });
      for (const [id, row] of rows) {
        const known = this.#known.get(id) ?? (this.#known.size < KNOWN_AT_MOST ? this.#knownOf(row) : undefined);
        if (!known) continue;
        known.total = totals.get(id) ?? known.total + row.count;
        known.pending -= taken.get(id) ?? 0;
      }
      for (const [id, n] of taken) {
        this.#pending -= n;
        if (this.#known.get(id)?.pending === 0) this.#unwritten.delete(id);
      }
      batch.forEach((q, i) =>
        q.resolve(
          q.windows.map((w, j) => {
            const id = windowHitId(w.key, w.windowStart);
            const row = rows.get(id)!;
            // The place counts the hits written before it in this upsert, those counted in the process included.
            return (totals.get(id) ?? row.count) - row.count + places[i]![j]!;
          }),
        ),
      );
    } catch (err) {
      for (const q of batch) q.reject(err);
    }
  }

  /** Whether the rows of ended windows are due to be deleted (at most once a minute), and what this process knows of them forgotten. */
  #pruneDue(now: number): boolean {
    if (now - this.#lastPrune < PRUNE_EVERY_MS && now >= this.#lastPrune) return false;
    this.#lastPrune = now;
    for (const [id, k] of this.#known) if (k.expiresAt <= now && k.pending === 0) this.#known.delete(id);
    return true;
  }
}

/** Whether a hit may be counted in the process (see the top of this file). */
function countsLocally(known: Known, max: number): boolean {
  return known.total + known.pending + 1 <= max * LOCAL_SHARE && known.pending + 1 <= Math.max(1, Math.floor(max * PENDING_SHARE));
}
