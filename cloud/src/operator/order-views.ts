/**
 * What the operator console shows of orders: search (externalId, barcode or phone, exact or
 * suffix; phones masked) and one order's whole history as one timeline: the marketplace's API
 * calls, the lifecycle's transitions, the commands to the locker and where they stand, the
 * locker's events and alerts naming the order, and every notification with each delivery attempt
 * and its HTTP answer.
 */
import { z } from 'zod';
import { invalidRequest } from '../errors.js';
import { findOrderById } from '../repositories/orders.js';
import { endOfLocalDay, localDate, startOfLocalDay } from '../lockers/locker-time.js';
import {
  lockerOrdersPage,
  type NotificationOutcome,
  orderHistory,
  type OrderListRow,
  orderSummaryRows,
  searchOrdersPage,
  storageEndingPage,
  zonesWithWaitingParcels,
} from '../repositories/operator-views.js';
import type { ServiceDeps } from '../services.js';

/** `+79161234567` -> `+7******4567`: the country code and the last four digits. */
export function maskPhone(phone: string): string {
  if (phone.length <= 6) return '*'.repeat(Math.max(0, phone.length - 2)) + phone.slice(-2);
  return phone.slice(0, 2) + '*'.repeat(phone.length - 6) + phone.slice(-4);
}

const contactsSchema = z.object({ phones: z.array(z.string()).optional() }).loose();

function maskedPhones(notificationJson: string): string[] {
  try {
    const parsed = contactsSchema.safeParse(JSON.parse(notificationJson));
    return parsed.success ? (parsed.data.phones ?? []).map(maskPhone) : [];
  } catch {
    return [];
  }
}

function present(r: OrderListRow) {
  return {
    orderId: r.id,
    externalId: r.externalId,
    marketplaceId: r.marketplaceId,
    lockerId: r.lockerId,
    state: r.state,
    phones: maskedPhones(r.notification),
    barcodes: r.barcodes,
    holdUntil: r.holdUntil,
    createdAt: r.createdAt,
    stateChangedAt: r.stateChangedAt,
  };
}

export async function searchOrders(deps: ServiceDeps, query: string, page: number, pageSize: number) {
  const { items, total } = await searchOrdersPage(deps.cdb.db, query, { offset: (page - 1) * pageSize, limit: pageSize });
  return { items: items.map(present), total, page, pageSize };
}

export async function lockerOrders(deps: ServiceDeps, lockerId: number, page: number, pageSize: number) {
  const { items, total } = await lockerOrdersPage(deps.cdb.db, lockerId, { offset: (page - 1) * pageSize, limit: pageSize });
  return { items: items.map(present), total, page, pageSize };
}

/**
 * Parcels waiting for pick-up whose storage ends today, today read in each locker's time zone
 * (as storage deadlines are: the console has no time zone of its own), earliest deadline first.
 */
export async function storageEndingToday(deps: ServiceDeps, page: number, pageSize: number) {
  const now = deps.clock.now();
  const days = (await zonesWithWaitingParcels(deps.cdb.db)).map((zone) => {
    const date = localDate(now, zone);
    return { zone, start: startOfLocalDay(date, zone), end: endOfLocalDay(date, zone) };
  });
  const { items, total } = await storageEndingPage(deps.cdb.db, days, { offset: (page - 1) * pageSize, limit: pageSize });
  return { items: items.map((r) => ({ ...present(r), lockerName: r.lockerName })), total, page, pageSize };
}

export const TIMELINE_KINDS = ['api_call', 'transition', 'command', 'locker_event', 'alert', 'notification', 'notification_attempt'] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

export interface TimelineEntry {
  at: number;
  kind: TimelineKind;
  /** One line for the list. */
  summary: string;
  detail: Record<string, unknown>;
}

export async function orderTimeline(deps: ServiceDeps, orderId: string) {
  const order = await findOrderById(deps.cdb.db, orderId);
  if (!order) throw invalidRequest({ ru: `заказ ${orderId} не найден`, en: `order ${orderId} not found` });
  const h = await orderHistory(deps.cdb.db, orderId, [order.locker_id]);
  const kindOf = new Map(h.notifications.map((n) => [n.id, n.kind]));
  const entries: TimelineEntry[] = [
    ...h.apiCalls.map((c) => ({
      at: c.at,
      kind: 'api_call' as const,
      summary: `${c.operation}: resultCode ${c.resultCode}`,
      detail: { operation: c.operation, marketplaceId: c.marketplaceId, resultCode: c.resultCode, requestId: c.requestId },
    })),
    ...h.transitions.map((t) => ({
      at: t.at,
      kind: 'transition' as const,
      summary: `${t.event}: ${t.fromState ?? '-'} -> ${t.toState} (${t.rule})`,
      detail: { seq: t.seq, rule: t.rule, event: t.event, fromState: t.fromState, toState: t.toState, parcels: t.parcels },
    })),
    ...h.commands.map((c) => ({
      at: c.createdAt,
      kind: 'command' as const,
      summary: `${c.type} #${c.cseq} to locker ${c.lockerId}: ${c.status}`,
      detail: { lockerId: c.lockerId, cseq: c.cseq, type: c.type, status: c.status },
    })),
    ...h.events.map((e) => ({
      at: e.receivedAt,
      kind: 'locker_event' as const,
      summary: `${e.type} #${e.dseq} from locker ${e.lockerId}`,
      detail: { lockerId: e.lockerId, dseq: e.dseq, type: e.type, occurredAt: new Date(e.occurredAt).toISOString(), body: e.body },
    })),
    ...h.alerts.map((a) => ({
      at: a.receivedAt,
      kind: 'alert' as const,
      summary: `${a.kind} (${a.severity}, ${a.status})`,
      detail: { alertId: a.id, lockerId: a.lockerId, kind: a.kind, severity: a.severity, status: a.status, detail: a.detail },
    })),
    ...h.notifications.map((n) => ({
      at: n.createdAt,
      kind: 'notification' as const,
      summary: `${n.kind} recorded${n.deliveredAt === null ? '' : ', delivered'}`,
      detail: { notificationId: n.id, kind: n.kind, deliveredAt: n.deliveredAt === null ? null : new Date(n.deliveredAt).toISOString() },
    })),
    ...h.attempts.map((a) => ({
      at: a.at,
      kind: 'notification_attempt' as const,
      summary: `${kindOf.get(a.notificationId) ?? 'notification'}: ${a.error === null ? `delivered (HTTP ${a.status ?? '-'})` : `HTTP ${a.status ?? 'no answer'}: ${a.error}`}`,
      detail: { notificationId: a.notificationId, kind: kindOf.get(a.notificationId) ?? null, status: a.status, error: a.error },
    })),
  ];
  // Stable: entries of one moment keep the order of the kinds above (a call before its transition...).
  entries.sort((a, b) => a.at - b.at);
  return {
    orderId,
    externalId: order.external_id,
    marketplaceId: order.marketplace_id,
    lockerId: order.locker_id,
    state: order.state,
    entries: entries.map((e) => ({ ...e, at: new Date(e.at).toISOString() })),
  };
}

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Whether the marketplace got a notification: delivered, failing (past the failing limit) or still on its way. */
export type DeliveryState = 'delivered' | 'failing' | 'pending';
const deliveryOf = (n: NotificationOutcome): DeliveryState => (n.deliveredAt !== null ? 'delivered' : n.failingSince !== null ? 'failing' : 'pending');

function presentNotification(n: NotificationOutcome) {
  return {
    notificationId: n.id,
    kind: n.kind,
    said: n.said,
    delivery: deliveryOf(n),
    recordedAt: isoOrNull(n.createdAt)!,
    deliveredAt: isoOrNull(n.deliveredAt),
    attempts: n.attempts,
    lastStatus: n.lastStatus,
    lastError: n.lastError,
  };
}

/**
 * The order as a person reads it first: its state, where its parcels are, the storage deadline,
 * whether a pick-up code is active and when it was last sent, and what the marketplace was told
 * and whether it got it. Nothing here is a code or a whole phone number.
 */
export async function orderSummary(deps: ServiceDeps, orderId: string) {
  const db = deps.cdb.db;
  const order = await findOrderById(db, orderId);
  if (!order) throw invalidRequest({ ru: `заказ ${orderId} не найден`, en: `order ${orderId} not found` });
  const rows = await orderSummaryRows(db, orderId, order.locker_id);
  const codeSent = rows.notifications.find((n) => n.kind === 'user-access-code');
  return {
    orderId,
    externalId: order.external_id,
    marketplaceId: order.marketplace_id,
    lockerId: order.locker_id,
    lockerName: rows.lockerName,
    timezone: rows.timezone,
    state: order.state,
    stateChangedAt: isoOrNull(order.state_changed_at),
    createdAt: isoOrNull(order.created_at),
    loadedAt: isoOrNull(order.loaded_at),
    holdUntil: isoOrNull(order.hold_until),
    phones: maskedPhones(order.notification),
    parcels: rows.parcels,
    code: {
      active: order.pickup_code_hash !== null,
      sentAt: codeSent ? isoOrNull(codeSent.createdAt) : null,
      delivery: codeSent ? deliveryOf(codeSent) : null,
    },
    marketplace: rows.notifications.map(presentNotification),
  };
}
