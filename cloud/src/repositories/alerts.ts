/**
 * Facts of lockers kept for operators (table locker_alerts). A routine fact (severity info) is
 * history: kept and listed on request, never an alert. A warning or critical fact is an alert,
 * deduplicated by its key: while an alert with the same key is open or acknowledged, a repeat
 * adds to its count and moves its lastSeenAt instead of adding a row. The detail is stored as
 * JSON and read back parsed; it never carries personal data or codes (the callers see to that).
 */
import { sql } from 'kysely';
import type { LockerAlertRow } from '../db/schema.js';
import { preparedRows } from '../db/prepared.js';
import type { Tx } from '../db/transaction.js';

export const ALERT_SEVERITIES = ['critical', 'warning', 'info'] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];
export const ALERT_STATUSES = ['open', 'acknowledged', 'resolved', 'history'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];
/** Statuses of an alert that still wants attention (a repeat joins it). */
export const ACTIVE_ALERT_STATUSES = ['open', 'acknowledged'] as const satisfies readonly AlertStatus[];

export interface NewAlert {
  lockerId: number;
  /** The locker event that raised it; null when the cloud raised it itself. */
  dseq: number | null;
  kind: string;
  severity: AlertSeverity;
  cellId: number | null;
  orderId: string | null;
  detail: Record<string, unknown>;
  /** Repeats with the same key join one alert. */
  dedupKey: string;
  /** When the locker saw it (locker clock). */
  occurredAt: number;
  receivedAt: number;
}

export interface Alert extends Omit<NewAlert, 'detail'> {
  id: number;
  detail: unknown;
  status: AlertStatus;
  count: number;
  lastSeenAt: number;
  acknowledgedAt: number | null;
  acknowledgedBy: string | null;
  resolvedAt: number | null;
  resolvedBy: string | null;
  resolveReason: string | null;
  assignee: string | null;
}

/** An operator's note on an alert. */
export interface AlertNote {
  alertId: number;
  at: number;
  operator: string;
  text: string;
}

export interface AlertQuery {
  lockerId?: number | undefined;
  /** Only alerts with a smaller id (paging backwards). */
  beforeId?: number | undefined;
  severity?: AlertSeverity | undefined;
  /** Default: every status but history. */
  statuses?: readonly AlertStatus[] | undefined;
  /** Rows to skip (page views). */
  offset?: number | undefined;
  limit: number;
}

function toAlert(r: LockerAlertRow): Alert {
  return {
    id: Number(r.id),
    lockerId: r.locker_id,
    dseq: r.dseq === null ? null : Number(r.dseq),
    kind: r.kind,
    severity: r.severity as AlertSeverity,
    cellId: r.cell_id,
    orderId: r.order_id,
    detail: JSON.parse(r.detail) as unknown,
    dedupKey: r.dedup_key ?? '',
    occurredAt: Number(r.occurred_at),
    receivedAt: Number(r.received_at),
    status: r.status as AlertStatus,
    count: r.count,
    lastSeenAt: Number(r.last_seen_at ?? r.received_at),
    acknowledgedAt: r.acknowledged_at === null ? null : Number(r.acknowledged_at),
    acknowledgedBy: r.acknowledged_by,
    resolvedAt: r.resolved_at === null ? null : Number(r.resolved_at),
    resolvedBy: r.resolved_by,
    resolveReason: r.resolve_reason,
    assignee: r.assignee ?? null,
  };
}

export async function assignAlert(db: Tx, alertId: number, assignee: string | null): Promise<Alert> {
  const row = await db.updateTable('locker_alerts').set({ assignee }).where('id', '=', alertId).returningAll().executeTakeFirstOrThrow();
  return toAlert(row);
}

export async function addAlertNote(db: Tx, note: AlertNote): Promise<void> {
  await db.insertInto('alert_notes').values({ alert_id: note.alertId, at: note.at, operator: note.operator, text: note.text }).execute();
}

/** The notes of these alerts, oldest first, by alert. */
export async function alertNotes(db: Tx, alertIds: readonly number[]): Promise<Map<number, AlertNote[]>> {
  const out = new Map<number, AlertNote[]>();
  if (alertIds.length === 0) return out;
  const rows = await db.selectFrom('alert_notes').selectAll().where('alert_id', 'in', [...alertIds]).orderBy('id').execute();
  for (const r of rows) {
    const id = Number(r.alert_id);
    out.set(id, [...(out.get(id) ?? []), { alertId: id, at: Number(r.at), operator: r.operator, text: r.text }]);
  }
  return out;
}

const ALERT_COLUMNS = [
  'locker_id', 'dseq', 'kind', 'severity', 'cell_id', 'order_id', 'detail', 'occurred_at', 'received_at', 'status', 'dedup_key', 'count', 'last_seen_at',
] as const;
const insertAlertRows = preparedRows('locker_alerts', ALERT_COLUMNS);

/** Routine facts (history), in one deferred statement (db/prepared.ts): nothing of them is read back. */
export async function insertHistory(db: Tx, alerts: readonly NewAlert[]): Promise<void> {
  await insertAlertRows(
    db,
    alerts.map((a) => ({
      locker_id: a.lockerId,
      dseq: a.dseq,
      kind: a.kind,
      severity: a.severity,
      cell_id: a.cellId,
      order_id: a.orderId,
      detail: JSON.stringify(a.detail),
      occurred_at: a.occurredAt,
      received_at: a.receivedAt,
      status: 'history',
      dedup_key: a.dedupKey,
      count: 1,
      last_seen_at: a.receivedAt,
    })),
  );
}

/**
 * Records a fact: history when routine (undefined: no row is read back), else a new alert or a
 * repeat of the active one with the same key. Callers hold the locker's transaction, so two
 * repeats never both add a row.
 */
export async function raiseAlert(db: Tx, alert: NewAlert): Promise<Alert | undefined> {
  if (alert.severity === 'info') {
    await insertHistory(db, [alert]);
    return undefined;
  }
  const active = await db
    .selectFrom('locker_alerts')
    .select('id')
    .where('dedup_key', '=', alert.dedupKey)
    .where('status', 'in', [...ACTIVE_ALERT_STATUSES])
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (active) {
    const row = await db
      .updateTable('locker_alerts')
      .set((eb) => ({
        count: eb('count', '+', 1),
        last_seen_at: alert.receivedAt,
        detail: JSON.stringify(alert.detail),
        // A repeat that is worse raises the alert's severity; a milder one leaves it.
        severity: alert.severity === 'critical' ? 'critical' : eb.ref('severity'),
      }))
      .where('id', '=', active.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toAlert(row);
  }
  const row = await db
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
      status: 'open',
      dedup_key: alert.dedupKey,
      count: 1,
      last_seen_at: alert.receivedAt,
      acknowledged_at: null,
      acknowledged_by: null,
      resolved_at: null,
      resolved_by: null,
      resolve_reason: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAlert(row);
}

/** Resolves the active alerts with these keys (a later fact cleared them); the resolved alerts. */
export async function resolveAlertsByKey(db: Tx, dedupKeys: readonly string[], at: number, by: string, reason: string): Promise<Alert[]> {
  if (dedupKeys.length === 0) return [];
  const rows = await db
    .updateTable('locker_alerts')
    .set({ status: 'resolved', resolved_at: at, resolved_by: by, resolve_reason: reason })
    .where('dedup_key', 'in', [...dedupKeys])
    .where('status', 'in', [...ACTIVE_ALERT_STATUSES])
    .returningAll()
    .execute();
  return rows.map(toAlert);
}

export async function findAlert(db: Tx, alertId: number): Promise<Alert | undefined> {
  const row = await db.selectFrom('locker_alerts').selectAll().where('id', '=', alertId).executeTakeFirst();
  return row && toAlert(row);
}

export async function acknowledgeAlert(db: Tx, alertId: number, at: number, by: string): Promise<Alert> {
  const row = await db
    .updateTable('locker_alerts')
    .set({ status: 'acknowledged', acknowledged_at: at, acknowledged_by: by })
    .where('id', '=', alertId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAlert(row);
}

export async function resolveAlert(db: Tx, alertId: number, at: number, by: string, reason: string): Promise<Alert> {
  const row = await db
    .updateTable('locker_alerts')
    .set({ status: 'resolved', resolved_at: at, resolved_by: by, resolve_reason: reason })
    .where('id', '=', alertId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAlert(row);
}

function filtered(db: Tx, q: Omit<AlertQuery, 'limit' | 'offset'>) {
  const statuses = q.statuses ?? ALERT_STATUSES.filter((s) => s !== 'history');
  let query = db.selectFrom('locker_alerts').where('status', 'in', [...statuses]);
  if (q.lockerId !== undefined) query = query.where('locker_id', '=', q.lockerId);
  if (q.beforeId !== undefined) query = query.where('id', '<', q.beforeId);
  if (q.severity !== undefined) query = query.where('severity', '=', q.severity);
  return query;
}

/** Newest first. */
export async function listAlerts(db: Tx, q: AlertQuery): Promise<Alert[]> {
  const rows = await filtered(db, q).selectAll().orderBy('id', 'desc').offset(q.offset ?? 0).limit(q.limit).execute();
  return rows.map(toAlert);
}

export async function countAlerts(db: Tx, q: Omit<AlertQuery, 'limit' | 'offset'>): Promise<number> {
  const row = await filtered(db, q).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Open alerts (not yet acknowledged or resolved) by severity, of the real lockers or of the sandbox ones. */
export async function openAlertsBySeverity(db: Tx, sandbox: boolean): Promise<Record<AlertSeverity, number>> {
  const rows = await db
    .selectFrom('locker_alerts')
    .select(['severity', sql<number>`count(*)`.as('n')])
    .where('status', '=', 'open')
    .where('locker_id', 'in', (eb) => eb.selectFrom('lockers').select('lockers.id').where('lockers.sandbox', '=', sandbox ? 1 : 0))
    .groupBy('severity')
    .execute();
  const out: Record<AlertSeverity, number> = { critical: 0, warning: 0, info: 0 };
  for (const r of rows) if (r.severity in out) out[r.severity as AlertSeverity] = Number(r.n);
  return out;
}

/** The latest door fact (door.alarm kind) of each cell of the locker that ever reported one. */
export async function latestDoorFacts(db: Tx, lockerId: number): Promise<Map<number, string>> {
  const latest = db
    .selectFrom('locker_alerts')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('locker_id', '=', lockerId)
    .where('kind', '=', 'door.alarm')
    .where('cell_id', 'is not', null)
    .groupBy('cell_id');
  const rows = await db.selectFrom('locker_alerts').select(['cell_id', 'detail']).where('id', 'in', latest).execute();
  const out = new Map<number, string>();
  for (const r of rows) {
    const kind = (JSON.parse(r.detail) as { kind?: unknown }).kind;
    if (typeof kind === 'string' && r.cell_id !== null) out.set(r.cell_id, kind);
  }
  return out;
}
