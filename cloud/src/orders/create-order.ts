/**
 * smartorder/create (with reservation) and order/create (fit check only).
 *
 * Idempotent: the same marketplace + externalId + canonical body returns the stored answer and
 * creates nothing; the same externalId with another body (or the other create operation) is
 * refused with code 3. Concurrent identical creates end in one order: the unique constraint on
 * (marketplace, externalId) decides, and the loser answers as a replay.
 */
import { OrderState, ParcelState } from '../../../shared/src/enums.js';
import { CLOUD_TRACER, tracer } from '../../../shared/src/tracing.js';
import type { OrderRow, ParcelRow } from '../db/schema.js';
import { isUniqueViolation } from '../db/errors.js';
import { lockerTransaction } from '../db/transaction.js';
import { invalidRequest } from '../errors.js';
import type { CreateOrderRequest, OrderAck, ReservationResult } from '../contract/orders.js';
import { loadLockerView, toReturn } from '../lockers/occupancy.js';
import { applyTransition, type Applied } from '../lifecycle/apply.js';
import { signalApplied } from '../lifecycle/signals.js';
import type { Marketplace } from '../repositories/accounts.js';
import type { ServiceDeps } from '../services.js';
import { lifecycleDeps } from './lifecycle-deps.js';
import { checkDeliveryDate, lockerForOrders } from './order-lockers.js';
import { findOrder } from '../repositories/orders.js';
import { NoCellsError, withNearestLockers } from './nearest-lockers.js';
import { allocateParcels } from './reserve.js';
import { requestHash } from './request-hash.js';
import { recordAnswer } from '../request-scope.js';

export type CreateMode = 'smartorder/create' | 'order/create';

function replayAnswer(order: OrderRow, hash: string): unknown {
  if (order.request_hash !== hash) {
    throw invalidRequest(`externalId ${order.external_id} is already used by an order created with other data`);
  }
  return JSON.parse(order.create_response) as unknown;
}

export async function createOrder(
  deps: ServiceDeps,
  marketplace: Marketplace,
  req: CreateOrderRequest,
  mode: 'smartorder/create',
): Promise<ReservationResult>;
export async function createOrder(deps: ServiceDeps, marketplace: Marketplace, req: CreateOrderRequest, mode: 'order/create'): Promise<OrderAck>;
export async function createOrder(
  deps: ServiceDeps,
  marketplace: Marketplace,
  req: CreateOrderRequest,
  mode: CreateMode,
): Promise<ReservationResult | OrderAck> {
  const { cdb, clock, random, config } = deps;
  const hash = requestHash(mode, req);
  // Committed data, read beside the transactions under way (cdb.reads); the transaction reads again.
  const earlier = await findOrder(cdb.reads, marketplace.id, req.externalId);
  if (earlier) return replayAnswer(earlier, hash) as ReservationResult | OrderAck;

  const locker = await lockerForOrders(cdb.reads, req.postamatId, marketplace);
  const now = clock.now();
  checkDeliveryDate(req.dateDelivery, locker, now);

  let outcome: { answer: ReservationResult | OrderAck; applied?: Applied };
  try {
    outcome = await lockerTransaction(cdb, [locker.id], async (tx) => {
      const raced = await findOrder(tx, marketplace.id, req.externalId);
      if (raced) return { answer: await recordAnswer(deps.request, tx, replayAnswer(raced, hash) as ReservationResult | OrderAck) };

      const view = await loadLockerView(tx, locker);
      const sizes = req.parcels.map((p) => ({
        barcode: p.barcode,
        length: p.dimension?.length ?? null,
        width: p.dimension?.width ?? null,
        height: p.dimension?.height ?? null,
        accessible: p.accessible === true,
      }));
      const allocation = tracer(CLOUD_TRACER).startActiveSpan('allocation', { attributes: { 'locker.id': locker.id, 'allocation.parcels': sizes.length } }, (span) => {
        try {
          return deps.metrics.reservations.allocated(() => allocateParcels(view, marketplace.id, sizes, config.allocation));
        } finally {
          span.end();
        }
      });
      const cellOf = new Map<string, number>();
      let result: ReservationResult | OrderAck;
      if (mode === 'smartorder/create') {
        for (const c of allocation.cells) for (const b of c.barcodes) cellOf.set(b, c.cellId);
        result = {
          reserved: allocation.cells.map((c) => ({ cellId: c.cellId, externalId: req.externalId, barcodes: c.barcodes })),
          temporarilyRejectedItems: allocation.temporarilyRejected,
          permanentlyRejectedItems: allocation.permanentlyRejected,
          toReturn: toReturn(view, marketplace.id),
        };
      } else {
        if (allocation.temporarilyRejected.length > 0 || allocation.permanentlyRejected.length > 0) {
          throw new NoCellsError({ locker, date: req.dateDelivery, parcels: sizes });
        }
        result = { externalId: req.externalId, state: OrderState.New };
      }

      const order: OrderRow = {
        id: random.uuid(),
        marketplace_id: marketplace.id,
        external_id: req.externalId,
        number: req.number ?? null,
        locker_id: locker.id,
        date_delivery: req.dateDelivery,
        state: OrderState.New,
        with_reservation: mode === 'smartorder/create' ? 1 : 0,
        request_hash: hash,
        create_response: JSON.stringify(result),
        client_invoice: JSON.stringify(req.clientInvoice),
        notification: JSON.stringify(req.notification),
        pickup_code_hash: null,
        loaded_at: null,
        hold_until: null,
        state_changed_at: now,
        created_at: now,
        updated_at: now,
      };
      const parcels: ParcelRow[] = req.parcels.map((p, i) => ({
        order_id: order.id,
        barcode: p.barcode,
        position: i,
        additional_barcodes: JSON.stringify(p.additionalBarcodes ?? []),
        length: p.dimension?.length ?? null,
        width: p.dimension?.width ?? null,
        height: p.dimension?.height ?? null,
        state: ParcelState.Pending,
        cell_id: cellOf.get(p.barcode) ?? null,
        loaded_at: null,
        updated_at: now,
        accessible: p.accessible ? 1 : 0,
      }));
      const applied = await applyTransition(tx, lifecycleDeps(deps), {
        event: 'order.create',
        before: null,
        order,
        parcelsBefore: [],
        parcels,
        locker,
        at: now,
        reservation: { timezone: locker.timezone, graceMinutes: config.reservationGraceMinutes },
      });
      return { answer: await recordAnswer(deps.request, tx, result), applied };
    });
  } catch (err) {
    if (err instanceof NoCellsError) throw await withNearestLockers(deps, marketplace.id, err);
    if (!isUniqueViolation(err)) throw err;
    // Another request (possibly another cloud process) created the order meanwhile.
    const winner = await findOrder(cdb.db, marketplace.id, req.externalId);
    if (!winner) throw err;
    return replayAnswer(winner, hash) as ReservationResult | OrderAck;
  }
  if (outcome.applied) signalApplied(deps.signals, [outcome.applied]);
  return outcome.answer;
}
