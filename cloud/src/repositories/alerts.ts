/**
 * Facts of lockers kept for operators (table locker_alerts). The detail is stored as JSON and
 * read back parsed; it never carries personal data or codes (the callers see to that).
 */
import type { LockerAlertRow } from '../db/schema.js';
import type { Tx } from '../db/transaction.js';

export type AlertSeverity = 'info' | 'warning';

export interface NewAlert {
  lockerId: number;
  /** The locker event that raised it; null when the cloud raised it itself. */
  dseq: number | null;
  kind: string;
  severity: AlertSeverity;
  cellId: number | null;
  orderId: string | null;
  detail: Record<string, unknown>;
  /** When the locker saw it (locker clock). */
  occurredAt: number;
  receivedAt: number;
}

export interface Alert extends Omit<NewAlert, 'detail'> {
  id: number;
  detail: unknown;
}

export interface AlertQuery {
  lockerId?: number | undefined;
  /** Only alerts with a smaller id (paging backwards). */
  beforeId?: number | undefined;
  severity?: AlertSeverity | undefined;
  limit: number;
}

export async function insertAlert(db: Tx, alert: NewAlert): Promise<void> {
  await db
    .insertInto('locker_alerts')
    .values({
      locker_id: alert.lockerId,
      dseq: alert.dseq,
      kind: alert.kind,
      severity: alert.severity,
      cell_id: alert.cellId,
      order_id: alert.orderId,
      detail: JSON.stringify(alert.detail),
      occurred_at: alert.occurredAt,
      received_at: alert.receivedAt,
    })
    .execute();
}

function toAlert(r: LockerAlertRow): Alert {
  return {
    id: r.id,
    lockerId: r.locker_id,
    dseq: r.dseq,
    kind: r.kind,
    severity: r.severity as AlertSeverity,
    cellId: r.cell_id,
    orderId: r.order_id,
    detail: JSON.parse(r.detail) as unknown,
    occurredAt: r.occurred_at,
    receivedAt: r.received_at,
  };
}

/** Newest first. */
export async function listAlerts(db: Tx, q: AlertQuery): Promise<Alert[]> {
  let query = db.selectFrom('locker_alerts').selectAll().orderBy('id', 'desc').limit(q.limit);
  if (q.lockerId !== undefined) query = query.where('locker_id', '=', q.lockerId);
  if (q.beforeId !== undefined) query = query.where('id', '<', q.beforeId);
  if (q.severity !== undefined) query = query.where('severity', '=', q.severity);
  return (await query.execute()).map(toAlert);
}
