/**
 * Deletes of the retention sweep (cloud/src/retention/): each removes at most `limit` rows past
 * their horizon in one statement and answers how many, so that a sweep works in short
 * transactions and never holds a lock for long. Finished orders are deleted by the lifecycle's
 * single writer (lifecycle/repository.ts, deleteFinishedOrdersBefore). What is still needed is never selected: an order
 * not yet finished, an order with a notification not yet delivered, an undelivered notification.
 */
import type { Tx } from '../db/transaction.js';
import { ACTIVE_ALERT_STATUSES } from './alerts.js';

const count = (r: { numDeletedRows: bigint }): number => Number(r.numDeletedRows);

/** The locker events the cloud applied and received before `before` (history; dedup uses the locker's applied dseq). */
export async function deleteInboxEventsBefore(db: Tx, before: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('inbox_events')
    .where((eb) =>
      eb(
        eb.refTuple('locker_id', 'dseq'),
        'in',
        eb.selectFrom('inbox_events').select(['locker_id', 'dseq']).where('received_at', '<', before).orderBy('received_at').limit(limit).$asTuple('locker_id', 'dseq'),
      ),
    )
    .executeTakeFirstOrThrow();
  return count(result);
}

/** Notifications delivered before `before`; an undelivered one is never touched. */
export async function deleteDeliveredNotificationsBefore(db: Tx, before: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('notifications')
    .where('id', 'in', (eb) =>
      eb.selectFrom('notifications').select('id').where('delivered_at', 'is not', null).where('delivered_at', '<', before).orderBy('delivered_at').limit(limit),
    )
    .executeTakeFirstOrThrow();
  return count(result);
}

/** Route sheets of days before `beforeDate` (YYYY-MM-DD) with their locker codes; their couriers stay. */
export async function deleteRouteSheetsBefore(db: Tx, beforeDate: string, limit: number): Promise<number> {
  const rows = await db.selectFrom('route_sheets').select('id').where('route_date', '<', beforeDate).orderBy('route_date').limit(limit).execute();
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return 0;
  await db.deleteFrom('route_sheet_lockers').where('route_sheet_id', 'in', ids).execute();
  return count(await db.deleteFrom('route_sheets').where('id', 'in', ids).executeTakeFirstOrThrow());
}

/** Locker alerts received before `before` that are history or resolved, with their notes; an open or acknowledged one stays. */
export async function deleteAlertsBefore(db: Tx, before: number, limit: number): Promise<number> {
  const rows = await db
    .selectFrom('locker_alerts')
    .select('id')
    .where('received_at', '<', before)
    .where('status', 'not in', [...ACTIVE_ALERT_STATUSES])
    .orderBy('received_at')
    .limit(limit)
    .execute();
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return 0;
  await db.deleteFrom('alert_notes').where('alert_id', 'in', ids).execute();
  return count(await db.deleteFrom('locker_alerts').where('id', 'in', ids).executeTakeFirstOrThrow());
}

/** Rows per table, for the sweep's report and the year benchmark. */
const RETAINED_TABLES = ['orders', 'parcels', 'order_transitions', 'order_revocations', 'notifications', 'inbox_events', 'locker_commands', 'route_sheets', 'route_sheet_lockers', 'locker_alerts'] as const;

export async function retainedRowCounts(db: Tx): Promise<Record<(typeof RETAINED_TABLES)[number], number>> {
  const out = {} as Record<(typeof RETAINED_TABLES)[number], number>;
  for (const t of RETAINED_TABLES) {
    const row = await db.selectFrom(t).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    out[t] = Number(row.n);
  }
  return out;
}

/**
 * Link changes before `before`, except each locker's last one before it: that row says whether the
 * locker was online when the kept history begins (uptime counts from it).
 */
export async function deleteLinkHistoryBefore(db: Tx, before: number, limit: number): Promise<number> {
  const rows = await db
    .selectFrom('locker_link_history as h')
    .select('h.id')
    .where('h.at', '<', before)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('locker_link_history as later')
          .select('later.id')
          .whereRef('later.locker_id', '=', 'h.locker_id')
          .where('later.at', '<', before)
          .where((l) => l.or([l('later.at', '>', l.ref('h.at')), l.and([l('later.at', '=', l.ref('h.at')), l('later.id', '>', l.ref('h.id'))])])),
      ),
    )
    .orderBy('h.at')
    .limit(limit)
    .execute();
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return 0;
  return count(await db.deleteFrom('locker_link_history').where('id', 'in', ids).executeTakeFirstOrThrow());
}
