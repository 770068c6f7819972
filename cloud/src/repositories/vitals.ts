/**
 * The aggregates the cloud's metrics read on each scrape (metrics/fleet-state.ts): a handful of
 * grouped queries whose size is bounded by the fleet (lockers, marketplaces), never by orders.
 */
import { sql } from 'kysely';
import type { Tx } from '../db/transaction.js';

export interface FleetVitals {
  lockers: number;
  lockersOnline: number;
  /** Every active locker's link as the cloud sees it (presence), for a series per locker. */
  lockerLinks: { lockerId: number; name: string; online: boolean }[];
  /** Per locker with commands its agent has not applied yet: how many, and the oldest one's creation time. */
  pendingCommands: { count: number; oldestAt: number }[];
  /** Per marketplace with undelivered notifications: how many, and the oldest one's creation time. */
  notificationBacklog: { marketplaceId: string; count: number; oldestAt: number }[];
  /** Lockers with a health report, and those whose latest report counts door faults or board errors. */
  lockersReporting: number;
  lockersWithDoorFaults: number;
  lockersWithBoardErrors: number;
  /** Unresolved console alerts per locker, kind, severity and whether someone is on them. */
  openAlerts: { lockerId: number; kind: string; severity: string; attended: boolean; count: number }[];
}

export async function fleetVitals(db: Tx): Promise<FleetVitals> {
  const [lockers, pending, backlog, health, links, alerts] = await Promise.all([
    db
      .selectFrom('lockers')
      .select((eb) => [eb.fn.countAll<number | string>().as('total'), eb.fn.sum<number | string | null>('online').as('online')])
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('locker_commands as c')
      .innerJoin('lockers as l', 'l.id', 'c.locker_id')
      .whereRef('c.cseq', '>', 'l.applied_cseq')
      .groupBy('c.locker_id')
      .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.min<number | string>('c.created_at').as('oldest')])
      .execute(),
    db
      .selectFrom('notifications')
      .where('delivered_at', 'is', null)
      .groupBy('marketplace_id')
      .select((eb) => ['marketplace_id', eb.fn.countAll<number | string>().as('count'), eb.fn.min<number | string>('created_at').as('oldest')])
      .execute(),
    db
      .selectFrom('locker_health')
      .select([
        sql<number | string>`count(*)`.as('reporting'),
        sql<number | string>`count(case when door_faults > 0 then 1 end)`.as('door_faults'),
        sql<number | string>`count(case when board_errors > 0 then 1 end)`.as('board_errors'),
      ])
      .executeTakeFirstOrThrow(),
    db.selectFrom('lockers').select(['id', 'name', 'online']).where('active', '=', 1).orderBy('id').execute(),
    // Attended: acknowledged, or assigned to someone. Bounded by lockers x kinds, never by alerts.
    db
      .selectFrom('locker_alerts')
      .where('status', 'in', ['open', 'acknowledged'])
      .select((eb) => [
        'locker_id',
        'kind',
        'severity',
        sql<number>`case when status = 'acknowledged' or assignee is not null then 1 else 0 end`.as('attended'),
        eb.fn.countAll<number | string>().as('count'),
      ])
      .groupBy(['locker_id', 'kind', 'severity', sql`case when status = 'acknowledged' or assignee is not null then 1 else 0 end`])
      .execute(),
  ]);
  return {
    lockers: Number(lockers.total),
    lockersOnline: Number(lockers.online ?? 0),
    lockerLinks: links.map((l) => ({ lockerId: l.id, name: l.name, online: Number(l.online) === 1 })),
    pendingCommands: pending.map((r) => ({ count: Number(r.count), oldestAt: Number(r.oldest) })),
    notificationBacklog: backlog.map((r) => ({ marketplaceId: r.marketplace_id, count: Number(r.count), oldestAt: Number(r.oldest) })),
    lockersReporting: Number(health.reporting),
    lockersWithDoorFaults: Number(health.door_faults),
    lockersWithBoardErrors: Number(health.board_errors),
    openAlerts: alerts.map((a) => ({ lockerId: a.locker_id, kind: a.kind, severity: a.severity, attended: Number(a.attended) === 1, count: Number(a.count) })),
  };
}
