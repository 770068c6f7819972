/**
 * order/update: only in state New (206 otherwise, 205 when the order is unknown).
 *
 * - Parcels are matched by barcode: a known one gets the sent values (additional barcodes,
 *   dimension) and keeps its state and cell; an unknown one is added. Parcels not sent stay.
 * - `clientInvoice`, when sent, replaces the stored one; `prePaymentSum` must equal the sum of the
 *   items' `totalSum` (code 3 otherwise).
 * - A new `postamatId` moves the order (only while none of its parcels is in a locker): the old
 *   locker gets `order.remove`, the new one the order.
 * - An order created with reservation has its pending parcels allocated again (its own cells count
 *   as free), so new or resized parcels get cells and a move reserves in the new locker; the answer
 *   then carries the reservation result. An order created without reservation is checked again for
 *   fitting free cells when its parcels or locker change (32 otherwise).
 */
import { ParcelState, ResultCode, type OrderState } from '../../../shared/src/enums.js';
import type { OrderRow, ParcelRow } from '../db/schema.js';
import { lockerTransaction } from '../db/transaction.js';
import { DomainError, invalidRequest } from '../errors.js';
import type { ClientInvoice, UpdateAnswer, UpdateOrderRequest } from '../contract/orders.js';
import { loadLockerView, toReturn } from '../lockers/occupancy.js';
import { applyTransition } from '../lifecycle/apply.js';
import { requireAllowed } from '../lifecycle/decide.js';
import { signalApplied } from '../lifecycle/signals.js';
import type { LockerCommandDraft } from '../outbox/record-change.js';
import type { Marketplace } from '../repositories/accounts.js';
import type { ServiceDeps } from '../services.js';
import { lifecycleDeps } from './lifecycle-deps.js';
import { checkDeliveryDate, lockerForOrders } from './order-lockers.js';
import { lockerById } from '../repositories/lockers.js';
import { findOrder, loadParcels } from '../repositories/orders.js';
import { NoCellsError, withNearestLockers } from './nearest-lockers.js';
import { allocateParcels } from './reserve.js';
import { recordAnswer } from '../request-scope.js';

export function notFound(): DomainError {
  return new DomainError(ResultCode.PostOperationNotFound, 'Post operation not found');
}

function checkInvoice(invoice: ClientInvoice): void {
  const sum = invoice.cart.items.reduce((total, item) => total + item.totalSum, 0);
  if (sum !== invoice.cart.prePaymentSum) {
    throw invalidRequest({ ru: `prePaymentSum ${invoice.cart.prePaymentSum} не равен сумме totalSum позиций (${sum})`, en: `prePaymentSum ${invoice.cart.prePaymentSum} differs from the sum of totalSum of the items (${sum})` });
  }
}

/** The order's locker may change under us (a concurrent update moving it); then read again. */
const MAX_ATTEMPTS = 3;

export async function updateOrder(deps: ServiceDeps, marketplace: Marketplace, req: UpdateOrderRequest): Promise<UpdateAnswer> {
  if (req.clientInvoice) checkInvoice(req.clientInvoice);
  for (let attempt = 1; ; attempt++) {
    const seen = await findOrder(deps.cdb.db, marketplace.id, req.externalId);
    if (!seen) throw notFound();
    let result: UpdateAnswer | 'moved';
    try {
      result = await tryUpdate(deps, marketplace, req, seen);
    } catch (err) {
      if (err instanceof NoCellsError) throw await withNearestLockers(deps, marketplace.id, err);
      throw err;
    }
    if (result !== 'moved') return result;
    if (attempt >= MAX_ATTEMPTS) throw new Error(`order ${seen.id} kept moving between lockers`);
  }
}

async function tryUpdate(
  deps: ServiceDeps,
  marketplace: Marketplace,
  req: UpdateOrderRequest,
  seen: OrderRow,
): Promise<UpdateAnswer | 'moved'> {
  const { cdb, clock, config } = deps;
  requireAllowed('order.update', seen.state as OrderState);
  const targetId = req.postamatId ?? seen.locker_id;
  const target = targetId === seen.locker_id ? await lockerById(cdb.db, seen.locker_id) : await lockerForOrders(cdb.db, targetId, marketplace);
  const now = clock.now();
  if (req.dateDelivery) checkDeliveryDate(req.dateDelivery, target, now);

  const outcome = await lockerTransaction(cdb, [seen.locker_id, target.id], async (tx) => {
    const order = await findOrder(tx, marketplace.id, req.externalId);
    if (!order) throw notFound();
    if (order.locker_id !== seen.locker_id) return 'moved' as const;
    requireAllowed('order.update', order.state as OrderState);
    const moving = target.id !== order.locker_id;
    const before = await loadParcels(tx, order.id);
    if (moving && before.some((p) => p.state !== ParcelState.Pending && p.state !== ParcelState.Cancelled)) {
      throw new DomainError(ResultCode.PostOperationWrongState, 'Post operation wrong state: a parcel is already in the postamat');
    }
    const { parcels, changed } = mergeParcels(order, before, req, now);
    if (moving) for (const p of parcels) p.cell_id = p.state === ParcelState.Pending ? null : p.cell_id;

    const view = await loadLockerView(tx, target);
    const updatedDate = req.dateDelivery ?? order.date_delivery;
    const pending = parcels.filter((p) => p.state === ParcelState.Pending);
    let answer: UpdateAnswer = { externalId: order.external_id, state: order.state };
    if (order.with_reservation) {
      const allocation = allocateParcels(view, marketplace.id, pending, config.allocation, order.id);
      const cellOf = new Map<string, number>();
      for (const c of allocation.cells) for (const b of c.barcodes) cellOf.set(b, c.cellId);
      for (const p of pending) p.cell_id = cellOf.get(p.barcode) ?? null;
      answer = {
        ...answer,
        reserved: allocation.cells.map((c) => ({ cellId: c.cellId, externalId: order.external_id, barcodes: c.barcodes })),
        temporarilyRejectedItems: allocation.temporarilyRejected,
        permanentlyRejectedItems: allocation.permanentlyRejected,
        toReturn: toReturn(view, marketplace.id),
      };
    } else if (moving || changed) {
      const allocation = allocateParcels(view, marketplace.id, pending, config.allocation, order.id);
      if (allocation.temporarilyRejected.length > 0 || allocation.permanentlyRejected.length > 0) {
        throw new NoCellsError({ locker: target, date: updatedDate, parcels: pending });
      }
    }

    const updated: OrderRow = {
      ...order,
      number: req.number ?? order.number,
      locker_id: target.id,
      date_delivery: req.dateDelivery ?? order.date_delivery,
      client_invoice: req.clientInvoice ? JSON.stringify(req.clientInvoice) : order.client_invoice,
      notification: req.notification ? JSON.stringify(req.notification) : order.notification,
      updated_at: now,
    };
    const commands: LockerCommandDraft[] = moving ? [{ lockerId: order.locker_id, body: { type: 'order.remove', orderId: order.id } }] : [];
    const applied = await applyTransition(tx, lifecycleDeps(deps), {
      event: 'order.update',
      before: order,
      order: updated,
      parcelsBefore: before,
      parcels,
      locker: target,
      at: now,
      commands,
      reservation: { timezone: target.timezone, graceMinutes: config.reservationGraceMinutes },
    });
    return { answer: await recordAnswer(deps.request, tx, answer), applied };
  });
  if (outcome === 'moved') return outcome;
  signalApplied(deps.signals, [outcome.applied]);
  return outcome.answer;
}

/** The order's parcels after the update, and whether anything that affects fitting changed. */
function mergeParcels(order: OrderRow, before: readonly ParcelRow[], req: UpdateOrderRequest, now: number): { parcels: ParcelRow[]; changed: boolean } {
  const parcels = before.map((p) => ({ ...p }));
  const byBarcode = new Map(parcels.map((p) => [p.barcode, p]));
  let next = parcels.reduce((max, p) => Math.max(max, p.position + 1), 0);
  let changed = false;
  for (const sent of req.parcels) {
    const values = {
      additional_barcodes: JSON.stringify(sent.additionalBarcodes ?? []),
      length: sent.dimension?.length ?? null,
      width: sent.dimension?.width ?? null,
      height: sent.dimension?.height ?? null,
      accessible: sent.accessible ? 1 : 0,
    };
    const known = byBarcode.get(sent.barcode);
    if (known) {
      if (known.length !== values.length || known.width !== values.width || known.height !== values.height || known.accessible !== values.accessible) {
        changed = true;
      }
      Object.assign(known, values, { updated_at: now });
    } else {
      changed = true;
      const added: ParcelRow = {
        order_id: order.id,
        barcode: sent.barcode,
        position: next++,
        ...values,
        state: ParcelState.Pending,
        cell_id: null,
        loaded_at: null,
        updated_at: now,
      };
      parcels.push(added);
      byBarcode.set(added.barcode, added);
    }
  }
  return { parcels, changed };
}
