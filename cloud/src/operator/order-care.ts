/**
 * Customer service on an order, by an operator: a new pick-up code sent to the marketplace (the
 * customer lost it, or it leaked), and the return started before storage ends. Each is a row of the
 * lifecycle tables (CR1, OR1 in lifecycle/table.ts), carried out like every other change of an
 * order, and audited in its transaction.
 */
import { ResultCode, type OrderState } from '../../../shared/src/enums.js';
import { lockerTransaction } from '../db/transaction.js';
import { DomainError } from '../errors.js';
import { applyTransition } from '../lifecycle/apply.js';
import { requireAllowed } from '../lifecycle/decide.js';
import { signalApplied } from '../lifecycle/signals.js';
import { lifecycleDeps } from '../orders/lifecycle-deps.js';
import { lockerById } from '../repositories/lockers.js';
import { findOrderById, loadParcels } from '../repositories/orders.js';
import type { ServiceDeps } from '../services.js';
import { type Actor, type AuditAction, audit, targets } from './audit.js';

/** What an operator may do to an order here: its lifecycle event and its audit action. */
const CARE = {
  code: { event: 'code.regenerate', action: 'order.code' },
  return: { event: 'return.start', action: 'order.return' },
} as const satisfies Record<string, { event: 'code.regenerate' | 'return.start'; action: AuditAction }>;
export type OrderCare = keyof typeof CARE;

export interface OrderCareAnswer {
  orderId: string;
  externalId: string;
  state: number;
  /** The lifecycle row that was applied (docs/lifecycle.md). */
  rule: string;
}

const notFound = (): DomainError => new DomainError(ResultCode.OperationNotFound, 'Operation not found');

/** Applies the care's lifecycle row to the order (Courier loaded only: 252 otherwise, 250 when unknown). */
export async function careForOrder(deps: ServiceDeps, actor: Actor, orderId: string, care: OrderCare): Promise<OrderCareAnswer> {
  const { event, action } = CARE[care];
  const seen = await findOrderById(deps.cdb.db, orderId);
  if (!seen) throw notFound();
  // Only a New order moves between lockers, and a New order is refused below: the locker is stable.
  const applied = await lockerTransaction(deps.cdb, [seen.locker_id], async (tx) => {
    const order = await findOrderById(tx, orderId);
    if (!order || order.locker_id !== seen.locker_id) throw notFound();
    requireAllowed(event, order.state as OrderState);
    const locker = await lockerById(tx, order.locker_id);
    const parcels = await loadParcels(tx, order.id);
    const at = deps.clock.now();
    const done = await applyTransition(tx, lifecycleDeps(deps), { event, before: order, order, parcelsBefore: parcels, parcels, locker, at });
    await audit(
      tx,
      actor,
      at,
      action,
      targets.order(orderId),
      { externalId: order.external_id, marketplaceId: order.marketplace_id, rule: done.rule.id, from: order.state, to: done.order.state },
      { orderId, lockerId: order.locker_id },
    );
    return done;
  });
  signalApplied(deps.signals, [applied]);
  deps.logger.info({ orderId, lockerId: applied.order.locker_id, rule: applied.rule.id, operator: actor.operator }, `operator ${event}`);
  return { orderId, externalId: applied.order.external_id, state: applied.order.state, rule: applied.rule.id };
}
