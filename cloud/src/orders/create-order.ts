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
import { lockerTransaction, type Tx } from '../db/transaction.js';
import { invalidRequest } from '../errors.js';
import type { CreateOrderRequest, OrderAck, ReservationResult } from '../contract/orders.js';
import { loadOccupancy, type LockerOccupancy, type Reserved } from '../lockers/locker-occupancy.js';
import { occupancyCacheOf } from '../lockers/occupancy-cache.js';
import { toReturn } from '../lockers/occupancy.js';
import { applyTransition, type Applied } from '../lifecycle/apply.js';
import { signalApplied } from '../lifecycle/signals.js';
import type { Marketplace } from '../repositories/accounts.js';
import type { ServiceDeps } from '../services.js';
import { lifecycleDeps } from './lifecycle-deps.js';
import { checkDeliveryDate, checkLockerForOrders } from './order-lockers.js';
import { findLocker } from '../repositories/lockers.js';
import { reservationHead } from '../repositories/occupancy.js';
import { findOrder } from '../repositories/orders.js';
import { NoCellsError, withNearestLockers } from './nearest-lockers.js';
import { allocateFromView, type ParcelSize } from './reserve.js';
import { requestHash } from './request-hash.js';
import { recordAnswer } from '../request-scope.js';

export type CreateMode = 'smartorder/create' | 'order/create';

function replayAnswer(order: OrderRow, hash: string): unknown {
  if (order.request_hash !== hash) {
    throw invalidRequest({ ru: `externalId ${order.external_id} уже занят заказом с другими данными`, en: `externalId ${order.external_id} is already used by an order created with other data` });
  }
  return JSON.parse(order.create_response) as unknown;
}

interface Outcome {
  answer: ReservationResult | OrderAck;
  /** A new order was written: what the occupancy view learns once the transaction committed. */
  written?: { applied: Applied; view: LockerOccupancy; reserved: Reserved };
}

interface Creation {
  deps: ServiceDeps;
  marketplace: Marketplace;
  req: CreateOrderRequest;
  mode: CreateMode;
  hash: string;
  now: number;
  sizes: ParcelSize[];
}

/** The create inside its transaction, whose first statement locks the locker (reservationHead). */
async function createInTransaction(tx: Tx, { deps, marketplace, req, mode, hash, now, sizes }: Creation): Promise<Outcome> {
  const { config, random } = deps;
  const lockerId = req.postamatId;
  const occupancy = occupancyCacheOf(deps.cdb);
  const head = await reservationHead(tx, lockerId, marketplace.id, req.externalId);
  const earlier = head.order ?? (head.occupancyVersion === undefined ? await findOrder(tx, marketplace.id, req.externalId) : undefined);
  if (earlier) return { answer: await recordAnswer(deps.request, tx, replayAnswer(earlier, hash) as ReservationResult | OrderAck) };
  if (head.occupancyVersion === undefined) throw invalidRequest({ ru: `postamatId ${lockerId} не найден`, en: `postamatId ${lockerId} not found` });

  const cached = occupancy.current(lockerId, head.occupancyVersion);
  deps.metrics.reservations.occupancyRead(cached ? 'memory' : 'database');
  const view = cached ?? (await loadOccupancy(tx, (await findLocker(tx, lockerId))!, head.occupancyVersion));
  const locker = checkLockerForOrders(view.row, lockerId, marketplace);
  checkDeliveryDate(req.dateDelivery, locker, now);
  // Not made the active span: nothing inside it starts a span or carries a trace, and entering a
  // context costs as much as the span itself.
  const span = tracer(CLOUD_TRACER).startSpan('allocation', { attributes: { 'locker.id': locker.id, 'allocation.parcels': sizes.length } });
  let allocation: ReturnType<typeof allocateFromView>;
  try {
    allocation = deps.metrics.reservations.allocated(() => allocateFromView(view, marketplace.id, sizes, config.allocation));
  } finally {
    span.end();
  }
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
  await deps.request?.call?.record(tx, order.id);
  const reserved: Reserved = { orderId: order.id, externalId: order.external_id, marketplaceId: marketplace.id, cells: mode === 'smartorder/create' ? allocation.cells : [] };
  return { answer: await recordAnswer(deps.request, tx, result), written: { applied, view, reserved } };
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
  const { cdb, clock } = deps;
  const hash = requestHash(mode, req);
  const now = clock.now();
  const lockerId = req.postamatId;
  const occupancy = occupancyCacheOf(cdb);
  const sizes: ParcelSize[] = req.parcels.map((p) => ({
    barcode: p.barcode,
    length: p.dimension?.length ?? null,
    width: p.dimension?.width ?? null,
    height: p.dimension?.height ?? null,
    accessible: p.accessible === true,
  }));

  let outcome: Outcome;
  try {
    // Reservations of one locker in this process one at a time: each starts from the view the last one left.
    outcome = await occupancy.exclusive(lockerId, () =>
      lockerTransaction(cdb, [lockerId], (tx) => createInTransaction(tx, { deps, marketplace, req, mode, hash, now, sizes }), 'caller'),
    );
  } catch (err) {
    if (err instanceof NoCellsError) throw await withNearestLockers(deps, marketplace.id, err);
    if (!isUniqueViolation(err)) throw err;
    // Another request (possibly another cloud process) created the order meanwhile.
    const winner = await findOrder(cdb.db, marketplace.id, req.externalId);
    if (!winner) throw err;
    return replayAnswer(winner, hash) as ReservationResult | OrderAck;
  }
  if (outcome.written) {
    // Committed: the view learns what this transaction wrote, at the version it left.
    const { applied, view, reserved } = outcome.written;
    const version = applied.occupancyVersions.get(lockerId);
    if (version !== undefined) {
      view.reserve(reserved, version);
      occupancy.keep(view);
    }
    signalApplied(deps.signals, [applied]);
    deps.request?.call?.recorded();
  }
  return outcome.answer;
}
