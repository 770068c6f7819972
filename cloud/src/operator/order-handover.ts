/**
 * An operator hands an order's parcels to the customer standing at the locker (the code does not
 * work for them): lifecycle row HO1 records the order's upsert and, after it, an `order.handover`
 * command with an absolute `notAfter`. The locker opens the cells holding the order's parcels as
 * for the customer's code; its `parcel.received` facts then move the order (to Client received
 * once nothing is left) and the marketplace gets order-status 2, as after a code pick-up.
 *
 * Refused at once, rather than queued, when the locker is offline: the customer is waiting at the
 * door now, and a door opening for nobody later is what must not happen. `notAfter` (default two
 * minutes) bounds what the broker or a reconnect may still delay.
 */
import { ResultCode, type OrderState } from '../../../shared/src/enums.js';
import { lockerTransaction } from '../db/transaction.js';
import { DomainError, invalidRequest } from '../errors.js';
import { applyTransition } from '../lifecycle/apply.js';
import { requireAllowed } from '../lifecycle/decide.js';
import { signalApplied } from '../lifecycle/signals.js';
import { lifecycleDeps } from '../orders/lifecycle-deps.js';
import { lockerById, lockerReach } from '../repositories/lockers.js';
import { findOrderById, loadParcels } from '../repositories/orders.js';
import type { ServiceDeps } from '../services.js';
import { type Actor, audit, targets } from './audit.js';

export const HANDOVER_DEFAULT_MAX_AGE_SECONDS = 120;
/** The customer is at the locker: a handover older than this opens a door to nobody. */
export const HANDOVER_MAX_AGE_SECONDS = 600;
/** The purpose kept as the audit entry's reason; the operator's words go beside it as the note. */
export const HANDOVER_REASON = 'customer_handover';

export interface HandoverAnswer {
  orderId: string;
  externalId: string;
  lockerId: number;
  state: number;
  rule: string;
  cseq: number;
  notAfter: number;
}

const notFound = (): DomainError => new DomainError(ResultCode.OperationNotFound, 'Operation not found');

export async function handOverOrder(deps: ServiceDeps, actor: Actor, orderId: string, maxAgeSeconds: number): Promise<HandoverAnswer> {
  const seen = await findOrderById(deps.cdb.db, orderId);
  if (!seen) throw notFound();
  // Only a New order moves between lockers, and a New order is refused below: the locker is stable.
  const { applied, notAfter } = await lockerTransaction(deps.cdb, [seen.locker_id], async (tx) => {
    const order = await findOrderById(tx, orderId);
    if (!order || order.locker_id !== seen.locker_id) throw notFound();
    requireAllowed('handover.request', order.state as OrderState);
    const reach = await lockerReach(tx, order.locker_id);
    if (!reach?.commandTypes?.includes('order.handover')) {
      // An agent that does not know the command would refuse the whole batch, over and over.
      throw invalidRequest({
        ru: `постамат ${order.locker_id} не объявил order.handover (его агент старее или с тех пор не подключался)`,
        en: `locker ${order.locker_id} has not announced order.handover (its agent is older, or has not connected since)`,
      });
    }
    if (!reach.online) {
      throw new DomainError(ResultCode.OperationBadState, `Operation have bad state: locker ${order.locker_id} is offline`, { status: 409 });
    }
    const at = deps.clock.now();
    const notAfter = at + maxAgeSeconds * 1000;
    const locker = await lockerById(tx, order.locker_id);
    const parcels = await loadParcels(tx, order.id);
    const commands = [{ lockerId: order.locker_id, body: { type: 'order.handover' as const, orderId, notAfter } }];
    const done = await applyTransition(tx, lifecycleDeps(deps), { event: 'handover.request', before: order, order, parcels, parcelsBefore: parcels, locker, at, commands });
    const cseq = done.commandCseqs[0]!;
    await audit(
      tx,
      actor,
      at,
      'order.handover',
      targets.order(orderId),
      { externalId: order.external_id, marketplaceId: order.marketplace_id, rule: done.rule.id, cseq, notAfter: new Date(notAfter).toISOString() },
      { orderId, lockerId: order.locker_id },
    );
    return { applied: { ...done, cseq }, notAfter };
  });
  signalApplied(deps.signals, [applied]);
  deps.logger.info({ orderId, lockerId: applied.order.locker_id, cseq: applied.cseq, notAfter, operator: actor.operator }, 'operator handover requested');
  return { orderId, externalId: applied.order.external_id, lockerId: applied.order.locker_id, state: applied.order.state, rule: applied.rule.id, cseq: applied.cseq, notAfter };
}
