/**
 * Operators extend an order's storage: by days, or up to a moment, through the same rule as the
 * marketplace's extension (orders/extend-storage.ts), audited in the same transaction.
 */
import { ResultCode } from '../../../shared/src/enums.js';
import { DomainError, invalidRequest } from '../errors.js';
import { extendInLockerTransaction } from '../orders/extend-storage.js';
import { findOrderById } from '../repositories/orders.js';
import type { ServiceDeps } from '../services.js';
import { type Actor, audit, targets } from './audit.js';

const HOUR_MS = 3_600_000;
/** The furthest an operator moves a deadline in one go. */
export const MAX_EXTENSION_DAYS = 90;

export type ExtensionRequest = { days: number } | { until: number };

function hoursToAdd(req: ExtensionRequest, holdUntil: number): number {
  if ('days' in req) return req.days * 24;
  const hours = Math.ceil((req.until - holdUntil) / HOUR_MS);
  if (hours < 1) throw invalidRequest({ ru: `until должен быть позже текущего конца хранения ${new Date(holdUntil).toISOString()}`, en: `until must be after the current end of storage ${new Date(holdUntil).toISOString()}` });
  if (hours > MAX_EXTENSION_DAYS * 24) throw invalidRequest({ ru: `until позже текущего конца хранения более чем на ${MAX_EXTENSION_DAYS} дн.`, en: `until is more than ${MAX_EXTENSION_DAYS} days after the current end of storage` });
  return hours;
}

export async function extendOrder(deps: ServiceDeps, actor: Actor & { reason: string }, orderId: string, req: ExtensionRequest) {
  const seen = await findOrderById(deps.cdb.db, orderId);
  if (!seen) throw new DomainError(ResultCode.OperationNotFound, 'Operation not found');
  const extended = await extendInLockerTransaction(
    deps,
    seen,
    (tx) => findOrderById(tx, orderId),
    (holdUntil) => hoursToAdd(req, holdUntil),
    (tx, e) =>
      audit(tx, actor, deps.clock.now(), 'order.extend', targets.order(orderId), {
        externalId: e.order.external_id,
        marketplaceId: e.order.marketplace_id,
        from: new Date(e.before.hold_until!).toISOString(),
        to: new Date(e.order.hold_until!).toISOString(),
      }, { orderId, lockerId: e.order.locker_id }),
  );
  return { orderId, externalId: extended.order.external_id, holdUntil: new Date(extended.order.hold_until!).toISOString(), dateStorage: extended.dateStorage };
}
