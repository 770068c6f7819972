/**
 * order/extension: +72 hours of storage, then the deadline rule (non-working days) again. Only in
 * Courier loaded (252 otherwise, 250 when unknown). The locker gets the new holdUntil and the
 * marketplace an expiration-date-changes notification. Operators extend by the same rule, by
 * as much as they choose (operator/order-actions.ts).
 */
import { ResultCode, type OrderState } from '../../../shared/src/enums.js';
import type { OrderRow } from '../db/schema.js';
import { lockerTransaction, type Tx } from '../db/transaction.js';
import { EXTENSION_HOURS } from './deadline.js';
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

export interface ExtensionAnswer {
  externalID: string;
  date_storage: string;
}

function notFound(): DomainError {
  return new DomainError(ResultCode.OperationNotFound, 'Operation not found');
}

export async function extendStorage(deps: ServiceDeps, marketplace: Marketplace, extId: string): Promise<ExtensionAnswer> {
  const seen = await findOrder(deps.cdb.db, marketplace.id, extId);
  if (!seen) throw notFound();
  const outcome = await extendInLockerTransaction(deps, seen, (tx) => findOrder(tx, marketplace.id, extId), () => EXTENSION_HOURS);
  return { externalID: outcome.order.external_id, date_storage: outcome.dateStorage };
}

export interface Extended {
  /** The order before the extension. */
  before: OrderRow;
  order: OrderRow;
  dateStorage: string;
}

/**
 * The one extension rule, for the marketplace's operation and the operator's: only in Courier
 * loaded (252 otherwise), `hours` more from the current end (given it, as read under the lock),
 * then past non-working days; the locker gets the new holdUntil, the marketplace an
 * expiration-date-changes notification. `inTransaction` runs last in the same transaction.
 */
export async function extendInLockerTransaction(
  deps: ServiceDeps,
  seen: OrderRow,
  reread: (tx: Tx) => Promise<OrderRow | undefined>,
  hours: (holdUntil: number) => number,
  inTransaction?: (tx: Tx, extended: Extended) => Promise<void>,
): Promise<Extended> {
  const { cdb, clock } = deps;
  // Only a New order moves between lockers, and a New order is refused below: the locker is stable.
  const outcome = await lockerTransaction(cdb, [seen.locker_id], async (tx) => {
    const order = await reread(tx);
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
      extensionHours: hours(order.hold_until),
    });
    const extended = { before: order, order: applied.order, dateStorage: isoWithOffset(applied.order.hold_until!, locker.timezone) };
    await inTransaction?.(tx, extended);
    return { extended, applied };
  });
  signalApplied(deps.signals, [outcome.applied]);
  return outcome.extended;
}
