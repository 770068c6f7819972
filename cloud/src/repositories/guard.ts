/**
 * The guard's shared state: fixed-window hit counters (rate_counters) and locks of guessed
 * credential paths (guard_locks), shared by every cloud process on one database.
 */
import { sql } from 'kysely';
import type { Tx } from '../db/transaction.js';

export interface WindowHit {
  key: string;
  /** Start of the window (epoch ms, a multiple of its length). */
  windowStart: number;
  /** End of the window: its row may be pruned from then on. */
  expiresAt: number;
  /** Hits to add (several requests counted in one statement); 1 when unset. */
  count?: number;
}

/** How countHits names a (key, window) in its answer. */
export const windowHitId = (key: string, windowStart: number): string => `${windowStart}:${key}`;

/**
 * Adds the hits of each (key, window) in one atomic upsert; answers the new counts by windowHitId. No
 * read-modify-write: processes counting at once never lose a hit. (key, window) pairs are distinct.
 */
export async function countHits(db: Tx, hits: readonly WindowHit[]): Promise<Map<string, number>> {
  if (hits.length === 0) return new Map();
  const rows = await db
    .insertInto('rate_counters')
    .values(hits.map((h) => ({ key: h.key, window_start: h.windowStart, hits: h.count ?? 1, expires_at: h.expiresAt })))
    .onConflict((oc) => oc.columns(['key', 'window_start']).doUpdateSet({ hits: sql<number>`rate_counters.hits + excluded.hits` }))
    .returning(['key', 'window_start', 'hits'])
    .execute();
  return new Map(rows.map((r) => [windowHitId(r.key, Number(r.window_start)), Number(r.hits)]));
}

export async function pruneCounters(db: Tx, now: number): Promise<void> {
  await db.deleteFrom('rate_counters').where('expires_at', '<=', now).execute();
}

/** The latest end of a lock on any of the keys still running at `now`; undefined: none. */
export async function lockedUntil(db: Tx, keys: readonly string[], now: number): Promise<number | undefined> {
  if (keys.length === 0) return undefined;
  const lock = await db
    .selectFrom('guard_locks')
    .select('locked_until')
    .where('key', 'in', [...keys])
    .where('locked_until', '>', now)
    .orderBy('locked_until', 'desc')
    .executeTakeFirst();
  return lock && Number(lock.locked_until);
}

/**
 * Locks the key until `until` unless a lock of it still runs at `now` (another process may have
 * just set it); true when this call locked it. Ended locks are pruned then.
 */
export async function lockKey(db: Tx, key: string, until: number, now: number): Promise<boolean> {
  const set = await db
    .insertInto('guard_locks')
    .values({ key, locked_until: until })
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet({ locked_until: (eb) => eb.ref('excluded.locked_until') })
        .where('guard_locks.locked_until', '<=', now),
    )
    .returning('key')
    .execute();
  if (set.length === 0) return false;
  await db.deleteFrom('guard_locks').where('locked_until', '<=', now).execute();
  return true;
}
