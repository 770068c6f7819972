/**
 * Locker facts kept for operators (table locker_alerts): door and board alarms, keypad attempts
 * and alarms, cell flags the locker raised, and facts that met an intent they do not fit. Each is
 * also logged; neither carries personal data or codes (the protocol never reports a code).
 */
import type { Logger } from 'pino';
import type { Tx } from '../db/transaction.js';
import { type AlertSeverity, insertAlert } from '../repositories/alerts.js';
import type { EventContext } from './context.js';

export type { AlertSeverity } from '../repositories/alerts.js';

export interface AlertDraft {
  kind: string;
  severity: AlertSeverity;
  cellId?: number | null;
  orderId?: string | null;
  detail: Record<string, unknown>;
}

export async function recordAlert(ctx: EventContext, alert: AlertDraft): Promise<void> {
  const { event, locker } = ctx;
  await insertAlert(ctx.tx, {
    lockerId: locker.id,
    dseq: event.dseq,
    kind: alert.kind,
    severity: alert.severity,
    cellId: alert.cellId ?? null,
    orderId: alert.orderId ?? null,
    detail: alert.detail,
    occurredAt: event.at,
    receivedAt: ctx.now,
  });
  const fields = { lockerId: locker.id, dseq: event.dseq, kind: alert.kind, cellId: alert.cellId ?? undefined, orderId: alert.orderId ?? undefined, ...alert.detail };
  if (alert.severity === 'warning') ctx.log.warn(fields, 'locker alert');
  else ctx.log.info(fields, 'locker fact');
}

/** An alert the cloud raises itself (no locker event: `dseq` null), e.g. guessing through the API. */
export async function recordCloudAlert(db: Tx, log: Logger, at: number, lockerId: number, alert: AlertDraft): Promise<void> {
  await insertAlert(db, {
    lockerId,
    dseq: null,
    kind: alert.kind,
    severity: alert.severity,
    cellId: alert.cellId ?? null,
    orderId: alert.orderId ?? null,
    detail: alert.detail,
    occurredAt: at,
    receivedAt: at,
  });
  const fields = { lockerId, kind: alert.kind, orderId: alert.orderId ?? undefined, ...alert.detail };
  if (alert.severity === 'warning') log.warn(fields, 'cloud alert');
  else log.info(fields, 'cloud fact');
}

export { listAlerts, type Alert, type AlertQuery } from '../repositories/alerts.js';
