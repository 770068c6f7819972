/**
 * Operators acknowledge an alert (someone is on it: it stays active, repeats still count) and
 * resolve it (done: a repeat opens a new alert). Each writes the audit entry in its transaction.
 */
import { transaction } from '../db/transaction.js';
import { invalidRequest } from '../errors.js';
import { alertMessage } from '../locker-events/alerts.js';
import { acknowledgeAlert, type Alert, findAlert, resolveAlert } from '../repositories/alerts.js';
import type { ServiceDeps } from '../services.js';
import { type Actor, audit, targets } from './audit.js';

async function activeAlert(tx: Parameters<typeof findAlert>[0], alertId: number): Promise<Alert> {
  const alert = await findAlert(tx, alertId);
  if (!alert) throw invalidRequest(`alert ${alertId} not found`);
  if (alert.status === 'history') throw invalidRequest(`${alertId} is a routine fact (history), not an alert`);
  return alert;
}

export async function acknowledge(deps: ServiceDeps, actor: Actor, alertId: number): Promise<Alert> {
  const now = deps.clock.now();
  const alert = await transaction(deps.cdb, async (tx) => {
    const found = await activeAlert(tx, alertId);
    if (found.status !== 'open') return found; // acknowledged or resolved already: nothing to do
    await audit(tx, actor, now, 'alert.acknowledge', targets.alert(alertId), { kind: found.kind, lockerId: found.lockerId, cellId: found.cellId }, { lockerId: found.lockerId });
    return acknowledgeAlert(tx, alertId, now, actor.operator);
  });
  deps.signals.live.publish(alertMessage(alert));
  return alert;
}

export async function resolve(deps: ServiceDeps, actor: Actor & { reason: string }, alertId: number): Promise<Alert> {
  const now = deps.clock.now();
  const alert = await transaction(deps.cdb, async (tx) => {
    const found = await activeAlert(tx, alertId);
    if (found.status === 'resolved') return found;
    await audit(tx, actor, now, 'alert.resolve', targets.alert(alertId), { kind: found.kind, lockerId: found.lockerId, cellId: found.cellId, from: found.status }, { lockerId: found.lockerId });
    return resolveAlert(tx, alertId, now, actor.operator, actor.reason);
  });
  deps.signals.live.publish(alertMessage(alert));
  return alert;
}
