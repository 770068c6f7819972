/**
 * Locker facts kept for operators (table locker_alerts): door and board alarms, keypad attempts
 * and alarms, cell flags the locker raised, and facts that met an intent they do not fit. Each is
 * also logged; neither carries personal data or codes (the protocol never reports a code).
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database, LockerAlertRow } from '../db/schema.js';
import type { EventContext } from './context.js';

export type AlertSeverity = 'info' | 'warning';

export interface AlertDraft {
  kind: string;
  severity: AlertSeverity;
  cellId?: number | null;
  orderId?: string | null;
  detail: Record<string, unknown>;
}

export async function recordAlert(ctx: EventContext, alert: AlertDraft): Promise<void> {
  const { event, locker } = ctx;
  await ctx.tx
    .insertInto('locker_alerts')
    .values({
      locker_id: locker.id,
      dseq: event.dseq,
      kind: alert.kind,
      severity: alert.severity,
      cell_id: alert.cellId ?? null,
      order_id: alert.orderId ?? null,
      detail: JSON.stringify(alert.detail),
      occurred_at: event.at,
      received_at: ctx.now,
    })
    .execute();
  const fields = { lockerId: locker.id, dseq: event.dseq, kind: alert.kind, cellId: alert.cellId ?? undefined, orderId: alert.orderId ?? undefined, ...alert.detail };
  if (alert.severity === 'warning') ctx.log.warn(fields, 'locker alert');
  else ctx.log.info(fields, 'locker fact');
}

/** An alert the cloud raises itself (no locker event: `dseq` null), e.g. guessing through the API. */
export async function recordCloudAlert(db: Kysely<Database>, log: Logger, at: number, lockerId: number, alert: AlertDraft): Promise<void> {
  await db
    .insertInto('locker_alerts')
    .values({
      locker_id: lockerId,
      dseq: null,
      kind: alert.kind,
      severity: alert.severity,
      cell_id: alert.cellId ?? null,
      order_id: alert.orderId ?? null,
      detail: JSON.stringify(alert.detail),
      occurred_at: at,
      received_at: at,
    })
    .execute();
  const fields = { lockerId, kind: alert.kind, orderId: alert.orderId ?? undefined, ...alert.detail };
  if (alert.severity === 'warning') log.warn(fields, 'cloud alert');
  else log.info(fields, 'cloud fact');
}

export interface AlertQuery {
  lockerId?: number | undefined;
  /** Only alerts with a smaller id (paging backwards). */
  beforeId?: number | undefined;
  severity?: AlertSeverity | undefined;
  limit: number;
}

/** Newest first. */
export async function listAlerts(db: Kysely<Database>, q: AlertQuery): Promise<LockerAlertRow[]> {
  let query = db.selectFrom('locker_alerts').selectAll().orderBy('id', 'desc').limit(q.limit);
  if (q.lockerId !== undefined) query = query.where('locker_id', '=', q.lockerId);
  if (q.beforeId !== undefined) query = query.where('id', '<', q.beforeId);
  if (q.severity !== undefined) query = query.where('severity', '=', q.severity);
  return query.execute();
}
