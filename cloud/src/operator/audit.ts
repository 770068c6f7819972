/**
 * The audit log of operator actions: who, when, what, to what, why. Each action writes its entry
 * with the `tx` of the change it makes, so the log never shows a change that did not happen nor
 * misses one that did.
 */
import type { Tx } from '../db/transaction.js';
import { insertAudit } from '../repositories/operators.js';

/**
 * Who acts and why, as the operator routes pass it to the services: `reason` is the action's
 * reason (a fixed purpose where the action has one, like a cell open's), `note` the operator's
 * own words beside it.
 */
export interface Actor {
  operator: string;
  reason: string | null;
  note?: string | null;
}

/** The locker and the order an entry concerns, kept beside the target so the log filters by them. */
export interface AuditRefs {
  lockerId?: number | null;
  orderId?: string | null;
}

export const AUDIT_ACTIONS = [
  'cell.flags',
  'cell.open',
  'service.code',
  'alert.acknowledge',
  'alert.resolve',
  'alert.assign',
  'alert.note',
  'order.extend',
  'order.code',
  'order.return',
  'order.handover',
  'notifications.redeliver',
  'release.upload',
  'rollout.create',
  'rollout.pause',
  'rollout.resume',
  'rollout.abort',
  'rollout.rollback',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export async function audit(tx: Tx, actor: Actor, at: number, action: AuditAction, target: string, detail: Record<string, unknown>, refs: AuditRefs = {}): Promise<void> {
  await insertAudit(tx, {
    at,
    operator: actor.operator,
    action,
    target,
    reason: actor.reason,
    note: actor.note ?? null,
    lockerId: refs.lockerId ?? null,
    orderId: refs.orderId ?? null,
    detail,
  });
}

export const targets = {
  cell: (lockerId: number, cellId: number) => `locker:${lockerId}/cell:${cellId}`,
  locker: (lockerId: number) => `locker:${lockerId}`,
  alert: (alertId: number) => `alert:${alertId}`,
  order: (orderId: string) => `order:${orderId}`,
  notifications: 'notifications',
  release: (releaseId: number) => `release:${releaseId}`,
  rollout: (rolloutId: number) => `rollout:${rolloutId}`,
} as const;
