/**
 * Locker facts kept for operators (table locker_alerts): door and board alarms, keypad attempts
 * and alarms, cell flags the locker raised, and facts that met an intent they do not fit. A
 * routine fact (info) is history; a warning or critical one is an alert, one per dedup key (kind,
 * locker, cell and what else tells two apart) with a count. A fact that clears (`clears`: door
 * closed, board back online, cell opened, flags recovered) resolves the active alert of its key.
 * Each is also logged; neither carries personal data or codes (the protocol never reports a code).
 */
import type { Logger } from 'pino';
import type { Tx } from '../db/transaction.js';
import type { LiveMessage } from '../operator/live-feed.js';
import { type Alert, type AlertSeverity, insertHistory, type NewAlert, raiseAlert, resolveAlertsByKey } from '../repositories/alerts.js';
import type { EventBatch } from '../sync/up-stream.js';
import type { EventContext } from './context.js';

export type { AlertSeverity } from '../repositories/alerts.js';

export interface AlertDraft {
  kind: string;
  severity: AlertSeverity;
  cellId?: number | null;
  orderId?: string | null;
  detail: Record<string, unknown>;
  /** What else, beyond kind, locker and cell, tells two alerts apart (a board, a keypad). */
  dedup?: string;
  /** The fact ends the trouble its key stands for: the active alert of that key is resolved. */
  clears?: boolean;
}

/** The one dedup key rule: `kind:locker:cell[:more]`. */
export function dedupKeyOf(lockerId: number, alert: AlertDraft): string {
  const base = `${alert.kind}:${lockerId}:${alert.cellId ?? '-'}`;
  return alert.dedup === undefined ? base : `${base}:${alert.dedup}`;
}

/** What operators watching live are told of an alert. */
export function alertMessage(a: Alert): LiveMessage {
  return { type: 'alert', alertId: a.id, lockerId: a.lockerId, cellId: a.cellId, kind: a.kind, severity: a.severity, status: a.status, count: a.count };
}

async function store(db: Tx, lockerId: number, dseq: number | null, occurredAt: number, receivedAt: number, alert: AlertDraft): Promise<LiveMessage[]> {
  const dedupKey = dedupKeyOf(lockerId, alert);
  const resolved = alert.clears ? await resolveAlertsByKey(db, [dedupKey], receivedAt, 'locker', `cleared by ${alert.kind}`) : [];
  const stored = await raiseAlert(db, {
    lockerId,
    dseq,
    kind: alert.kind,
    severity: alert.severity,
    cellId: alert.cellId ?? null,
    orderId: alert.orderId ?? null,
    detail: alert.detail,
    dedupKey,
    occurredAt,
    receivedAt,
  });
  return [...resolved, ...(stored ? [stored] : [])].map(alertMessage);
}

/** Routine facts of a batch, kept in one statement at its end: nothing reads them back meanwhile. */
const historyOf = new WeakMap<EventBatch, NewAlert[]>();

function keepHistory(ctx: EventContext, alert: AlertDraft): void {
  let rows = historyOf.get(ctx.batch);
  if (!rows) {
    const batchRows: NewAlert[] = [];
    historyOf.set(ctx.batch, (rows = batchRows));
    ctx.batch.atEnd((tx) => insertHistory(tx, batchRows));
  }
  const { event, locker } = ctx;
  rows.push({
    lockerId: locker.id,
    dseq: event.dseq,
    kind: alert.kind,
    severity: alert.severity,
    cellId: alert.cellId ?? null,
    orderId: alert.orderId ?? null,
    detail: alert.detail,
    dedupKey: dedupKeyOf(locker.id, alert),
    occurredAt: event.at,
    receivedAt: ctx.now,
  });
}

export async function recordAlert(ctx: EventContext, alert: AlertDraft): Promise<void> {
  const { event, locker } = ctx;
  if (alert.severity === 'info' && !alert.clears) keepHistory(ctx, alert);
  else ctx.live.push(...(await store(ctx.tx, locker.id, event.dseq, event.at, ctx.now, alert)));
  const fields = { lockerId: locker.id, dseq: event.dseq, kind: alert.kind, cellId: alert.cellId ?? undefined, orderId: alert.orderId ?? undefined, ...alert.detail };
  if (alert.severity === 'info') ctx.log.info(fields, 'locker fact');
  else ctx.log.warn({ ...fields, severity: alert.severity }, 'locker alert');
}

/**
 * An alert the cloud raises itself (no locker event: `dseq` null), e.g. guessing through the API.
 * Returns what operators watching live are to be told once the transaction committed.
 */
export async function recordCloudAlert(db: Tx, log: Logger, at: number, lockerId: number, alert: AlertDraft): Promise<LiveMessage[]> {
  const live = await store(db, lockerId, null, at, at, alert);
  const fields = { lockerId, kind: alert.kind, orderId: alert.orderId ?? undefined, ...alert.detail };
  if (alert.severity === 'info') log.info(fields, 'cloud fact');
  else log.warn({ ...fields, severity: alert.severity }, 'cloud alert');
  return live;
}

export { listAlerts, type Alert, type AlertQuery } from '../repositories/alerts.js';
