/**
 * Operators acknowledge an alert (someone is on it: it stays active, repeats still count) and
 * resolve it (done: a repeat opens a new alert), assign it to an operator (or to nobody again)
 * and add notes to it. Each writes the audit entry in its transaction.
 */
import { transaction } from '../db/transaction.js';
import { invalidRequest } from '../errors.js';
import { alertMessage } from '../locker-events/alerts.js';
import { acknowledgeAlert, addAlertNote, type Alert, assignAlert, findAlert, resolveAlert } from '../repositories/alerts.js';
import type { ServiceDeps } from '../services.js';
import { type Actor, audit, targets } from './audit.js';

async function activeAlert(tx: Parameters<typeof findAlert>[0], alertId: number): Promise<Alert> {
  const alert = await findAlert(tx, alertId);
  if (!alert) throw invalidRequest({ ru: `оповещение ${alertId} не найдено`, en: `alert ${alertId} not found` });
  if (alert.status === 'history') throw invalidRequest({ ru: `${alertId} — обычное событие (history), а не оповещение`, en: `${alertId} is a routine fact (history), not an alert` });
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

/** Assigns an open or acknowledged alert to an operator (null: to nobody); the same assignee again changes nothing. */
export async function assign(deps: ServiceDeps, actor: Actor, alertId: number, assignee: string | null): Promise<Alert> {
  const now = deps.clock.now();
  const alert = await transaction(deps.cdb, async (tx) => {
    const found = await activeAlert(tx, alertId);
    if (found.status === 'resolved') throw invalidRequest({ ru: `оповещение ${alertId} уже закрыто`, en: `alert ${alertId} is resolved` });
    if (found.assignee === assignee) return found;
    await audit(tx, actor, now, 'alert.assign', targets.alert(alertId), { kind: found.kind, from: found.assignee, to: assignee }, { lockerId: found.lockerId, orderId: found.orderId });
    return assignAlert(tx, alertId, assignee);
  });
  deps.signals.live.publish(alertMessage(alert));
  return alert;
}

/** Adds an operator's note to an alert, whatever its status (a resolved one keeps its story). */
export async function addNote(deps: ServiceDeps, actor: Actor, alertId: number, text: string): Promise<Alert> {
  const now = deps.clock.now();
  const alert = await transaction(deps.cdb, async (tx) => {
    const found = await activeAlert(tx, alertId);
    await addAlertNote(tx, { alertId, at: now, operator: actor.operator, text });
    await audit(tx, { ...actor, note: text }, now, 'alert.note', targets.alert(alertId), { kind: found.kind }, { lockerId: found.lockerId, orderId: found.orderId });
    return found;
  });
  deps.signals.live.publish(alertMessage(alert));
  return alert;
}
