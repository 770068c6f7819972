/**
 * What the alert watch asks of the lockers' presence: the active lockers offline since before a
 * moment that have no active `locker.offline` alert yet, and the lockers back online whose
 * alert is still active.
 */
import type { Tx } from '../db/transaction.js';
import { ACTIVE_ALERT_STATUSES } from './alerts.js';

export const LOCKER_OFFLINE_KIND = 'locker.offline';

export interface OfflineLocker {
  lockerId: number;
  name: string;
  offlineSince: number;
}

/** Active lockers offline since `before` or earlier and not yet alerted, oldest first, at most `limit`. */
export async function offlineUnalerted(db: Tx, before: number, limit: number): Promise<OfflineLocker[]> {
  const rows = await db
    .selectFrom('lockers as l')
    .select(['l.id', 'l.name', 'l.presence_changed_at'])
    .where('l.active', '=', 1)
    .where('l.online', '=', 0)
    .where('l.presence_changed_at', 'is not', null)
    .where('l.presence_changed_at', '<=', before)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('locker_alerts as a')
            .select('a.id')
            .whereRef('a.locker_id', '=', 'l.id')
            .where('a.kind', '=', LOCKER_OFFLINE_KIND)
            .where('a.status', 'in', [...ACTIVE_ALERT_STATUSES]),
        ),
      ),
    )
    .orderBy('l.presence_changed_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ lockerId: r.id, name: r.name, offlineSince: Number(r.presence_changed_at) }));
}

/** Dedup keys of the active `locker.offline` alerts whose locker is online again (or no longer active). */
export async function offlineAlertsBackOnline(db: Tx, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('locker_alerts as a')
    .innerJoin('lockers as l', 'l.id', 'a.locker_id')
    .select('a.dedup_key')
    .where('a.kind', '=', LOCKER_OFFLINE_KIND)
    .where('a.status', 'in', [...ACTIVE_ALERT_STATUSES])
    .where((eb) => eb.or([eb('l.online', '=', 1), eb('l.active', '=', 0)]))
    .limit(limit)
    .execute();
  return rows.flatMap((r) => (r.dedup_key === null ? [] : [r.dedup_key]));
}
