/**
 * order/detail: where a courier finds the order's parcels. The order is looked up by parcel
 * barcode among the marketplace's orders (200 when none; the newest order wins if the marketplace
 * reused a barcode). The courier is identified by `courierExternalId` among the couriers of the
 * partners that deliver for the marketplace (203 when unknown) and/or by `postamatAccessCode`; an
 * active route sheet of that courier / with that code must include the order's locker (210).
 */
import { CodeKind, OrderState, ResultCode } from '../../../shared/src/enums.js';
import { codeHash } from '../../../shared/src/codes.js';
import type { MarketplaceRow } from '../db/schema.js';
import { DomainError } from '../errors.js';
import type { OrderDetail, OrderDetailRequest } from '../contract/index.js';
import { isoWithOffset } from '../lockers/locker-time.js';
import { presentWorkTimeProfile } from '../lockers/present.js';
import { parseProfile } from '../lockers/profile.js';
import type { ServiceDeps } from '../services.js';
import { loadParcels } from './order-store.js';

export async function orderDetail(deps: ServiceDeps, marketplace: MarketplaceRow, req: OrderDetailRequest): Promise<OrderDetail> {
  const { db } = deps.cdb;
  const order = await db
    .selectFrom('orders')
    .innerJoin('parcels', 'parcels.order_id', 'orders.id')
    .selectAll('orders')
    .where('orders.marketplace_id', '=', marketplace.id)
    .where('parcels.barcode', '=', req.barcode)
    .orderBy('orders.created_at', 'desc')
    .executeTakeFirst();
  if (!order) throw new DomainError(ResultCode.OrderNotFound, 'Order not found');

  const partners = db.selectFrom('partner_marketplaces').select('partner_id').where('marketplace_id', '=', marketplace.id);
  let courierId: string | undefined;
  if (req.courierExternalId !== undefined) {
    const courier = await db
      .selectFrom('couriers')
      .select('id')
      .where('external_id', '=', req.courierExternalId)
      .where('partner_id', 'in', partners)
      .executeTakeFirst();
    if (!courier) throw new DomainError(ResultCode.LogistNotFound, 'Logist not found');
    courierId = courier.id;
  }

  let routes = db
    .selectFrom('route_sheet_lockers')
    .innerJoin('route_sheets', 'route_sheets.id', 'route_sheet_lockers.route_sheet_id')
    .select('route_sheets.id')
    .where('route_sheet_lockers.locker_id', '=', order.locker_id)
    .where('route_sheet_lockers.valid_until', '>=', deps.clock.now())
    .where('route_sheets.partner_id', 'in', partners);
  if (courierId !== undefined) routes = routes.where('route_sheets.courier_id', '=', courierId);
  if (req.postamatAccessCode !== undefined) {
    routes = routes.where('route_sheet_lockers.code_hash', '=', codeHash(CodeKind.Courier, String(order.locker_id), req.postamatAccessCode));
  }
  if (!(await routes.executeTakeFirst())) throw new DomainError(ResultCode.CourierRouteNotFound, 'Courier route not found');

  const locker = await db.selectFrom('lockers').selectAll().where('id', '=', order.locker_id).executeTakeFirstOrThrow();
  const profile = parseProfile(locker.profile);
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
