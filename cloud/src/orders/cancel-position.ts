/**
 * order/place/cancel: cancels one parcel position of an order (New or Courier loaded).
 *
 * Per parcel: pending -> cancelled (its reservation released); loaded -> awaiting return (a
 * courier collects it). Refused: unknown order 205, unknown barcode 207, a position already
 * cancelled or awaiting return 208, a parcel the customer took or a courier collected 211.
 *
 * The order then follows its parcels (rows X1 to X7 of the lifecycle table, docs/lifecycle.md):
 * - no position left (every parcel cancelled or awaiting return): 5 Cancelled when nothing of it is
 *   in the locker, else 6 Return initiated with the pick-up code revoked. The storage clock
 *   (expiry/) moves 6 -> 7 once the locker confirms or at most 15 minutes later, and sends the
 *   event 7 notification then.
 * - New whose remaining positions are all loaded: becomes Courier loaded (pick-up code, deadline);
 * - otherwise the state stays.
 */
import { ResultCode, type ParcelState } from '../../../shared/src/enums.js';
import { lockerTransaction } from '../db/transaction.js';
import { DomainError } from '../errors.js';
import type { OrderAck } from '../contract/orders.js';
import { applyTransition } from '../lifecycle/apply.js';
import { acceptedStep, parcelStep } from '../lifecycle/decide.js';
import { stepParcel } from '../lifecycle/parcel-step.js';
import { signalApplied } from '../lifecycle/signals.js';
import type { Marketplace } from '../repositories/accounts.js';
import type { ServiceDeps } from '../services.js';
import { lifecycleDeps } from './lifecycle-deps.js';
import { lockerById } from '../repositories/lockers.js';
import { findOrder, loadParcels } from '../repositories/orders.js';
import { notFound } from './update-order.js';
import { recordAnswer } from '../request-scope.js';

export interface CancelPositionRequest {
  extId: string;
  barcode: string;
}

export async function cancelPosition(deps: ServiceDeps, marketplace: Marketplace, req: CancelPositionRequest): Promise<OrderAck> {
  const { cdb, clock } = deps;
  // The order's locker may change under us (a concurrent update moving it); then read again.
  for (let attempt = 1; ; attempt++) {
    const seen = await findOrder(cdb.db, marketplace.id, req.extId);
    if (!seen) throw notFound();
    const outcome = await lockerTransaction(cdb, [seen.locker_id], async (tx) => {
      const order = await findOrder(tx, marketplace.id, req.extId);
      if (!order) throw notFound();
      if (order.locker_id !== seen.locker_id) return 'moved' as const;
      const parcels = await loadParcels(tx, order.id);
      const parcel = parcels.find((p) => p.barcode === req.barcode);
      if (!parcel) throw new DomainError(ResultCode.PackagingNotFound, 'Packaging not found');
      const now = clock.now();
      const step = acceptedStep(parcelStep('position.cancel', parcel.state as ParcelState));
      const after = parcels.map((p) => (p === parcel ? stepParcel(p, step, now) : p));
      const locker = await lockerById(tx, order.locker_id);
      const applied = await applyTransition(tx, lifecycleDeps(deps), {
        event: 'position.cancel',
        before: order,
        order,
        parcelsBefore: parcels,
        parcels: after,
        locker,
        at: now,
        reservation: { timezone: locker.timezone, graceMinutes: deps.config.reservationGraceMinutes },
      });
      return { answer: await recordAnswer(deps.request, tx, { externalId: order.external_id, state: applied.order.state }), applied };
    });
    if (outcome === 'moved') {
      if (attempt >= 3) throw new Error(`order ${seen.id} kept moving between lockers`);
      continue;
    }
    signalApplied(deps.signals, [outcome.applied]);
    return outcome.answer;
  }
}
