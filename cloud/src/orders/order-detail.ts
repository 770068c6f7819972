/**
 * order/detail: where a courier finds the order's parcels. The order is looked up by parcel
 * barcode among the marketplace's orders (200 when none; the newest order wins if the marketplace
 * reused a barcode). The courier is identified by `courierExternalId` among the couriers of the
 * partners that deliver for the marketplace (203 when unknown) and/or by `postamatAccessCode`; an
 * active route sheet of that courier / with that code must include the order's locker (210).
 */
import { CodeKind, OrderState, ResultCode } from '../../../shared/src/enums.js';
import { codeHash } from '../../../shared/src/codes.js';
import { DomainError } from '../errors.js';
import type { OrderDetail, OrderDetailRequest } from '../contract/index.js';
import { isoWithOffset } from '../lockers/locker-time.js';
import { presentWorkTimeProfile } from '../lockers/present.js';
import type { Marketplace } from '../repositories/accounts.js';
import type { ServiceDeps } from '../services.js';
import { courierOfMarketplace, routeToLocker } from '../repositories/couriers.js';
import { lockerById } from '../repositories/lockers.js';
import { loadParcels, newestOrderWithParcel } from '../repositories/orders.js';

export async function orderDetail(deps: ServiceDeps, marketplace: Marketplace, req: OrderDetailRequest): Promise<OrderDetail> {
  const { db } = deps.cdb;
  const order = await newestOrderWithParcel(db, marketplace.id, req.barcode);
  if (!order) throw new DomainError(ResultCode.OrderNotFound, 'Order not found');

  let courierId: string | undefined;
  if (req.courierExternalId !== undefined) {
    courierId = await courierOfMarketplace(db, marketplace.id, req.courierExternalId);
    if (courierId === undefined) throw new DomainError(ResultCode.LogistNotFound, 'Logist not found');
  }
  const route = await routeToLocker(db, {
    marketplaceId: marketplace.id,
    lockerId: order.locker_id,
    at: deps.clock.now(),
    courierId,
    codeHash: req.postamatAccessCode === undefined ? undefined : codeHash(CodeKind.Courier, String(order.locker_id), req.postamatAccessCode),
  });
  if (!route) throw new DomainError(ResultCode.CourierRouteNotFound, 'Courier route not found');

  const locker = await lockerById(db, order.locker_id);
  const { profile } = locker;
  const cells = new Map<number, string[]>();
  for (const p of await loadParcels(db, order.id)) {
    if (p.cell_id === null) continue;
    cells.set(p.cell_id, [...(cells.get(p.cell_id) ?? []), p.barcode]);
  }
  const workTimeProfile = presentWorkTimeProfile(locker, profile);
  return {
    idPoint: locker.id,
    orderNumber: order.external_id,
    ...(workTimeProfile ? { workTimeProfile } : {}),
    location: profile.location,
    pointAccess: {
      privateAccess: profile.access.privateAccess,
      accessGuide: profile.access.accessGuide,
      ...(profile.access.intercomCode ? { accessCode: profile.access.intercomCode } : {}),
    },
    holdedCells: [...cells.entries()].sort(([a], [b]) => a - b).map(([cellId, barcodes]) => ({ cellId, barcodes })),
    ...(order.state === OrderState.CourierLoaded && order.hold_until !== null ? { holdUntil: isoWithOffset(order.hold_until, locker.timezone) } : {}),
    state: order.state,
  };
}
