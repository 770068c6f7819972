/**
 * order/extension: +72 hours of storage, then the deadline rule (non-working days) again. Only in
 * Courier loaded (252 otherwise, 250 when unknown). The locker gets the new holdUntil and the
 * marketplace an expiration-date-changes notification.
 */
import { ResultCode, type OrderState } from '../../../shared/src/enums.js';
import { lockerTransaction } from '../db/transaction.js';
import { DomainError } from '../errors.js';
import { isoWithOffset } from '../lockers/locker-time.js';
import { applyTransition } from '../lifecycle/apply.js';
import { requireAllowed } from '../lifecycle/decide.js';
import { signalApplied } from '../lifecycle/signals.js';
import type { Marketplace } from '../repositories/accounts.js';
import type { ServiceDeps } from '../services.js';
import { lifecycleDeps } from './lifecycle-deps.js';
import { lockerById } from '../repositories/lockers.js';
import { findOrder, loadParcels } from '../repositories/orders.js';
import { recordAnswer } from '../request-scope.js';

export interface ExtensionAnswer {
  externalID: string;
  date_storage: string;
}

function notFound(): DomainError {
  return new DomainError(ResultCode.OperationNotFound, 'Operation not found');
}

export async function extendStorage(deps: ServiceDeps, marketplace: Marketplace, extId: string): Promise<ExtensionAnswer> {
  const { cdb, clock } = deps;
  const seen = await findOrder(cdb.db, marketplace.id, extId);
  if (!seen) throw notFound();
  // Only a New order moves between lockers, and a New order is refused below: the locker is stable.
  const outcome = await lockerTransaction(cdb, [seen.locker_id], async (tx) => {
    const order = await findOrder(tx, marketplace.id, extId);
    if (!order) throw notFound();
    requireAllowed('storage.extend', order.state as OrderState);
    if (order.hold_until === null || order.locker_id !== seen.locker_id) {
      throw new DomainError(ResultCode.OperationBadState, 'Operation have bad state');
    }
    const locker = await lockerById(tx, order.locker_id);
    const parcels = await loadParcels(tx, order.id);
    const applied = await applyTransition(tx, lifecycleDeps(deps), {
      event: 'storage.extend',
      before: order,
      order,
      parcelsBefore: parcels,
      parcels,
      locker,
      at: clock.now(),
    });
    const expire = isoWithOffset(applied.order.hold_until!, locker.timezone);
    return { answer: await recordAnswer(deps.request, tx, { externalID: order.external_id, date_storage: expire }), applied };
  });
  signalApplied(deps.signals, [outcome.applied]);
  return outcome.answer;
}
