/**
 * The latest health report of each locker's agent (table locker_health): written when a report
 * arrives over the link, read by the operator's health endpoint. The report is kept as the JSON
 * the agent sent; its door faults and board errors are columns for the metrics' aggregates.
 */
import { sql } from 'kysely';
import { healthReportSchema, type HealthReport } from '../../../shared/src/protocol.js';
import type { Tx } from '../db/transaction.js';

export interface StoredHealthReport {
  lockerId: number;
  report: HealthReport;
  receivedAt: number;
}

/**
 * Keeps `report` as the locker's latest unless a later one is stored already (reports can
 * overtake each other after a reconnect). False when the cloud does not know the locker.
 */
export async function saveHealthReport(db: Tx, lockerId: number, report: HealthReport, receivedAt: number): Promise<boolean> {
  const known = await db.selectFrom('lockers').select('id').where('id', '=', lockerId).executeTakeFirst();
  if (!known) return false;
  const row = {
    locker_id: lockerId,
    report: JSON.stringify(report),
    door_faults: report.doorFaults,
    board_errors: report.boards.errors,
    reported_at: report.at,
    received_at: receivedAt,
  };
  await db
    .insertInto('locker_health')
    .values(row)
    .onConflict((oc) =>
      oc
        .column('locker_id')
        .doUpdateSet({
          report: row.report,
          door_faults: row.door_faults,
          board_errors: row.board_errors,
          reported_at: row.reported_at,
          received_at: row.received_at,
        })
        .where(sql<boolean>`locker_health.reported_at <= ${row.reported_at}`),
    )
    .execute();
  return true;
}

export async function healthReportOf(db: Tx, lockerId: number): Promise<StoredHealthReport | undefined> {
  const row = await db.selectFrom('locker_health').select(['locker_id', 'report', 'received_at']).where('locker_id', '=', lockerId).executeTakeFirst();
  if (!row) return undefined;
  return { lockerId: row.locker_id, report: healthReportSchema.parse(JSON.parse(row.report)), receivedAt: row.received_at };
}
