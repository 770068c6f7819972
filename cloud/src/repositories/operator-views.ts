/**
 * The reads behind the operator console's views: the fleet overview, the locker list (one query
 * for the page with its total, one for the page's cells: no query per locker), a locker's
 * commands and orders, order search, and the history of one order. Reads only; every function
 * takes the executor the caller holds.
 */
import { type ExpressionBuilder, sql } from 'kysely';
import { OrderState } from '../../../shared/src/enums.js';
import type { Database } from '../db/schema.js';
import { prepared } from '../db/prepared.js';
import type { Tx } from '../db/transaction.js';
import { type CellFlag } from '../../../shared/src/enums.js';
import { FLAG_COLUMNS, cellFlags } from './lockers.js';
import { CELL_HOLDING_PARCEL_STATES } from './occupancy.js';

const HOLDING_ORDER_EXCLUDED = [OrderState.ClientReceived, OrderState.CourierPickedUp, OrderState.Cancelled];

/** `text` for a LIKE pattern: %, _ and \ taken literally (with ESCAPE '\'). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function like(column: string, pattern: string) {
  return sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`;
}

/** A parcel of a non-terminal order holds the cell or has reserved it. */
const heldBy = (eb: ExpressionBuilder<Database, 'cells'>) =>
  eb.exists(
    eb
      .selectFrom('parcels')
      .innerJoin('orders', 'orders.id', 'parcels.order_id')
      .select('parcels.cell_id')
      .whereRef('parcels.cell_id', '=', 'cells.id')
      .whereRef('orders.locker_id', '=', 'cells.locker_id')
      .where('parcels.state', 'in', [...CELL_HOLDING_PARCEL_STATES])
      .where('orders.state', 'not in', HOLDING_ORDER_EXCLUDED),
  );

export interface FleetCounts {
  lockers: number;
  online: number;
  cellsNeedingInspection: number;
  cellsBlocked: number;
  notificationsUndelivered: number;
  oldestUndeliveredAt: number | null;
}

/** Counts over the active lockers and the notifications outbox. */
export async function fleetCounts(db: Tx, sandbox: boolean): Promise<FleetCounts> {
  const flag = sandbox ? 1 : 0;
  const lockers = await db
    .selectFrom('lockers')
    .select([sql<number>`count(*)`.as('n'), sql<number>`coalesce(sum(online), 0)`.as('online')])
    .where('active', '=', 1)
    .where('sandbox', '=', flag)
    .executeTakeFirstOrThrow();
  const cells = await db
    .selectFrom('cells')
    .innerJoin('lockers', 'lockers.id', 'cells.locker_id')
    .select([
      sql<number>`coalesce(sum(case when cells.faulty = 1 or cells.dirty = 1 or cells.needs_inventory = 1 then 1 else 0 end), 0)`.as('inspection'),
      sql<number>`coalesce(sum(cells.blocked), 0)`.as('blocked'),
    ])
    .where('lockers.active', '=', 1)
    .where('lockers.sandbox', '=', flag)
    .executeTakeFirstOrThrow();
  const backlog = await db
    .selectFrom('notifications')
    .select([sql<number>`count(*)`.as('n'), sql<number | null>`min(created_at)`.as('oldest')])
    .where('delivered_at', 'is', null)
    .where('marketplace_id', 'in', (eb) => eb.selectFrom('marketplaces').select('marketplaces.id').where('marketplaces.sandbox', '=', flag))
    .executeTakeFirstOrThrow();
  return {
    lockers: Number(lockers.n),
    online: Number(lockers.online),
    cellsNeedingInspection: Number(cells.inspection),
    cellsBlocked: Number(cells.blocked),
    notificationsUndelivered: Number(backlog.n),
    oldestUndeliveredAt: backlog.oldest === null ? null : Number(backlog.oldest),
  };
}

// ---------------------------------------------------------------------------------------------
// Fill rate, the map and flagged cells
// ---------------------------------------------------------------------------------------------

/** Usable cells (no flag) and those of them a parcel holds or has reserved. */
export interface CellFill {
  usable: number;
  occupied: number;
}

/** The cells of active lockers that can take a parcel (no flag) with `occupied` (held by a parcel): the one rule of the fill rate. */
function fillQuery(db: Tx) {
  let query = db
    .selectFrom('cells')
    .innerJoin('lockers', 'lockers.id', 'cells.locker_id')
    .select((eb) => [
      sql<number>`count(*)`.as('usable'),
      sql<number>`coalesce(sum(${eb.case().when(heldBy(eb)).then(1).else(0).end()}), 0)`.as('occupied'),
    ])
    .where('lockers.active', '=', 1);
  for (const column of Object.values(FLAG_COLUMNS)) query = query.where(`cells.${column}`, '=', 0);
  return query;
}

/** The fill of the network's (or the sandbox's) active lockers together. */
export async function fleetFill(db: Tx, sandbox: boolean): Promise<CellFill> {
  const row = await fillQuery(db).where('lockers.sandbox', '=', sandbox ? 1 : 0).executeTakeFirstOrThrow();
  return { usable: Number(row.usable), occupied: Number(row.occupied) };
}

/**
 * The fill of each of these active lockers, or of every active locker (`all`: no list of ids, for
 * the map's thousands), in one query; a locker without a usable cell is absent.
 */
export async function fillOf(db: Tx, lockerIds: readonly number[] | 'all'): Promise<Map<number, CellFill>> {
  if (lockerIds !== 'all' && lockerIds.length === 0) return new Map();
  let query = fillQuery(db).select('cells.locker_id').groupBy('cells.locker_id');
  if (lockerIds !== 'all') query = query.where('cells.locker_id', 'in', [...lockerIds]);
  const rows = await query.execute();
  return new Map(rows.map((r) => [r.locker_id, { usable: Number(r.usable), occupied: Number(r.occupied) }]));
}

export interface MapLockerRow {
  id: number;
  name: string;
  /** The locker's profile, JSON (location: latitude, longitude). */
  profile: string;
  online: boolean;
  sandbox: boolean;
  openAlerts: number;
}

/** The first `limit` active lockers by id (sandbox ones too, marked), with their total. */
export async function mapLockers(db: Tx, limit: number): Promise<{ rows: MapLockerRow[]; total: number }> {
  const total = await db.selectFrom('lockers').select(sql<number>`count(*)`.as('n')).where('active', '=', 1).executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom('lockers')
    .select((eb) => ['lockers.id', 'lockers.name', 'lockers.profile', 'lockers.online', 'lockers.sandbox', openAlertCount(eb).as('open_alerts')])
    .where('lockers.active', '=', 1)
    .orderBy('lockers.id')
    .limit(limit)
    .execute();
  return {
    total: Number(total.n),
    rows: rows.map((r) => ({ id: r.id, name: r.name, profile: r.profile, online: !!r.online, sandbox: !!r.sandbox, openAlerts: Number(r.open_alerts) })),
  };
}

export interface FlaggedCellRow {
  lockerId: number;
  lockerName: string;
  cellId: number;
  width: number;
  height: number;
  flags: CellFlag[];
}

/** Cells of active lockers (the network's or the sandbox's) having any of `flags`, by locker then cell, a page at a time. */
export async function flaggedCellsPage(
  db: Tx,
  q: { flags: readonly CellFlag[]; sandbox: boolean; offset: number; limit: number },
): Promise<{ rows: FlaggedCellRow[]; total: number }> {
  const base = db
    .selectFrom('cells')
    .innerJoin('lockers', 'lockers.id', 'cells.locker_id')
    .where('lockers.active', '=', 1)
    .where('lockers.sandbox', '=', q.sandbox ? 1 : 0)
    .where((eb) => eb.or(q.flags.map((f) => eb(`cells.${FLAG_COLUMNS[f]}`, '=', 1))));
  const total = await base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const rows = await base
    .select(['cells.locker_id', 'lockers.name', 'cells.id', 'cells.width', 'cells.height', 'cells.faulty', 'cells.dirty', 'cells.needs_inventory', 'cells.blocked'])
    .orderBy('cells.locker_id')
    .orderBy('cells.id')
    .offset(q.offset)
    .limit(q.limit)
    .execute();
  return {
    total: Number(total.n),
    rows: rows.map((r) => ({ lockerId: r.locker_id, lockerName: r.name, cellId: r.id, width: r.width, height: r.height, flags: cellFlags(r) })),
  };
}

export interface LockerListQuery {
  /** Only this locker. */
  lockerId?: number | undefined;
  /** Id, name, city or address (part of it, case-insensitive for Latin letters). */
  query?: string | undefined;
  online?: boolean | undefined;
  /** Only lockers with open alerts. */
  openAlerts?: boolean | undefined;
  offset: number;
  limit: number;
}

export interface LockerListRow {
  id: number;
  name: string;
  active: boolean;
  broken: boolean;
  /** The locker's profile, JSON (location: city, address). */
  profile: string;
  online: boolean;
  presenceChangedAt: number | null;
  lastSeenAt: number | null;
  lastEventAt: number | null;
  openAlerts: number;
  /** The agent's version as it last said (hello, presence, update report); null: never said. */
  agentVersion: string | null;
}

const openAlertCount = (eb: ExpressionBuilder<Database, 'lockers'>) =>
  eb
    .selectFrom('locker_alerts')
    .select(sql<number>`count(*)`.as('n'))
    .whereRef('locker_alerts.locker_id', '=', 'lockers.id')
    .where('locker_alerts.status', '=', 'open');

/** One page of lockers by id, with the total of the filter, in one query. */
export async function lockerListPage(db: Tx, q: LockerListQuery): Promise<{ rows: LockerListRow[]; total: number }> {
  let query = db
    .selectFrom('lockers')
    // The last applied event is the one at acked_dseq (primary key lookup).
    .leftJoin('inbox_events', (j) => j.onRef('inbox_events.locker_id', '=', 'lockers.id').onRef('inbox_events.dseq', '=', 'lockers.acked_dseq'))
    .leftJoin('locker_agents', 'locker_agents.locker_id', 'lockers.id')
    .select((eb) => [
      'lockers.id',
      'lockers.name',
      'lockers.active',
      'lockers.broken',
      'lockers.profile',
      'lockers.online',
      'lockers.presence_changed_at',
      'lockers.last_seen_at',
      'inbox_events.received_at as last_event_at',
      'locker_agents.version as agent_version',
      openAlertCount(eb).as('open_alerts'),
      sql<number>`count(*) over ()`.as('total'),
    ]);
  if (q.lockerId !== undefined) query = query.where('lockers.id', '=', q.lockerId);
  if (q.online !== undefined) query = query.where('lockers.online', '=', q.online ? 1 : 0);
  if (q.openAlerts) query = query.where((eb) => eb(openAlertCount(eb), '>', 0));
  if (q.query) {
    const text = q.query.toLowerCase();
    const pattern = `%${likeLiteral(text)}%`;
    const id = /^\d{1,10}$/.test(text) ? Number(text) : null;
    query = query.where((eb) =>
      eb.or([
        ...(id !== null ? [eb('lockers.id', '=', id)] : []),
        eb(sql`lower(${sql.ref('lockers.name')})`, 'like', sql`${pattern} escape '\\'`),
        // The profile holds the location (city, street, full address) as JSON text.
        eb(sql`lower(${sql.ref('lockers.profile')})`, 'like', sql`${pattern} escape '\\'`),
      ]),
    );
  }
  const rows = await query.orderBy('lockers.id').offset(q.offset).limit(q.limit).execute();
  return {
    total: rows.length > 0 ? Number(rows[0]!.total) : await lockerListTotal(db, q),
    rows: rows.map((r) => ({
      id: r.id,
      name: r.name,
      active: !!r.active,
      broken: !!r.broken,
      profile: r.profile,
      online: !!r.online,
      presenceChangedAt: r.presence_changed_at === null ? null : Number(r.presence_changed_at),
      lastSeenAt: r.last_seen_at === null ? null : Number(r.last_seen_at),
      lastEventAt: r.last_event_at === null ? null : Number(r.last_event_at),
      openAlerts: Number(r.open_alerts),
      agentVersion: r.agent_version ?? null,
    })),
  };
}

/** The total when the page is past the end (no row to carry it). */
async function lockerListTotal(db: Tx, q: LockerListQuery): Promise<number> {
  if (q.offset === 0) return 0;
  const { total } = await lockerListPage(db, { ...q, offset: 0, limit: 1 });
  return total;
}

export interface CellState {
  lockerId: number;
  cellId: number;
  width: number;
  height: number;
  flags: CellFlag[];
  /** A parcel of a non-terminal order holds or has reserved it. */
  held: boolean;
}

/** Every cell of these lockers with its flags and whether a parcel holds it, in one query. */
export async function cellStatesOf(db: Tx, lockerIds: readonly number[]): Promise<CellState[]> {
  if (lockerIds.length === 0) return [];
  const rows = await db
    .selectFrom('cells')
    .select((eb) => [
      'cells.locker_id',
      'cells.id',
      'cells.width',
      'cells.height',
      'cells.faulty',
      'cells.dirty',
      'cells.needs_inventory',
      'cells.blocked',
      heldBy(eb).as('held'),
    ])
    .where('cells.locker_id', 'in', [...lockerIds])
    .execute();
  return rows.map((r) => ({ lockerId: r.locker_id, cellId: r.id, width: r.width, height: r.height, flags: cellFlags(r), held: !!r.held }));
}

export interface LoggedCommand {
  cseq: number;
  type: string;
  body: unknown;
  createdAt: number;
  status: 'pending' | 'sent' | 'acked';
}

export const COMMAND_STATUSES = ['pending', 'sent', 'acked'] as const;

/** The locker's logged commands, newest first, with where each stands (acked commands are trimmed after a while). */
export async function lockerCommandsPage(
  db: Tx,
  lockerId: number,
  q: { status?: LoggedCommand['status'] | undefined; offset: number; limit: number },
): Promise<{ items: LoggedCommand[]; total: number }> {
  const cursor = await db.selectFrom('lockers').select(['applied_cseq', 'sent_cseq']).where('id', '=', lockerId).executeTakeFirst();
  if (!cursor) return { items: [], total: 0 };
  const applied = Number(cursor.applied_cseq);
  const sent = Math.max(Number(cursor.sent_cseq), applied);
  let base = db.selectFrom('locker_commands').where('locker_id', '=', lockerId);
  if (q.status === 'acked') base = base.where('cseq', '<=', applied);
  if (q.status === 'sent') base = base.where('cseq', '>', applied).where('cseq', '<=', sent);
  if (q.status === 'pending') base = base.where('cseq', '>', sent);
  const total = await base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const rows = await base.select(['cseq', 'type', 'body', 'created_at']).orderBy('cseq', 'desc').offset(q.offset).limit(q.limit).execute();
  return {
    total: Number(total.n),
    items: rows.map((r) => {
      const cseq = Number(r.cseq);
      return { cseq, type: r.type, body: JSON.parse(r.body) as unknown, createdAt: Number(r.created_at), status: cseq <= applied ? 'acked' : cseq <= sent ? 'sent' : 'pending' };
    }),
  };
}

export interface OrderListRow {
  id: string;
  marketplaceId: string;
  externalId: string;
  lockerId: number;
  state: number;
  /** The customer contacts, JSON (masked by the caller). */
  notification: string;
  holdUntil: number | null;
  createdAt: number;
  stateChangedAt: number;
  barcodes: string[];
}

type OrderColumns = Pick<Database['orders'], 'id' | 'marketplace_id' | 'external_id' | 'locker_id' | 'state' | 'notification' | 'hold_until' | 'created_at' | 'state_changed_at'>;

async function withBarcodes(db: Tx, rows: readonly OrderColumns[]): Promise<OrderListRow[]> {
  const ids = rows.map((r) => r.id);
  const parcels = ids.length === 0 ? [] : await db.selectFrom('parcels').select(['order_id', 'barcode']).where('order_id', 'in', ids).orderBy('position').execute();
  const byOrder = new Map<string, string[]>();
  for (const p of parcels) byOrder.set(p.order_id, [...(byOrder.get(p.order_id) ?? []), p.barcode]);
  return rows.map((r) => ({
    id: r.id,
    marketplaceId: r.marketplace_id,
    externalId: r.external_id,
    lockerId: r.locker_id,
    state: r.state,
    notification: r.notification,
    holdUntil: r.hold_until === null ? null : Number(r.hold_until),
    createdAt: Number(r.created_at),
    stateChangedAt: Number(r.state_changed_at),
    barcodes: byOrder.get(r.id) ?? [],
  }));
}

const ORDER_COLUMNS = ['id', 'marketplace_id', 'external_id', 'locker_id', 'state', 'notification', 'hold_until', 'created_at', 'state_changed_at'] as const;

/** The locker's orders, newest first. */
export async function lockerOrdersPage(db: Tx, lockerId: number, q: { offset: number; limit: number }): Promise<{ items: OrderListRow[]; total: number }> {
  const total = await db.selectFrom('orders').select(sql<number>`count(*)`.as('n')).where('locker_id', '=', lockerId).executeTakeFirstOrThrow();
  const rows = await db.selectFrom('orders').select(ORDER_COLUMNS).where('locker_id', '=', lockerId).orderBy('created_at', 'desc').orderBy('id').offset(q.offset).limit(q.limit).execute();
  return { total: Number(total.n), items: await withBarcodes(db, rows) };
}

/**
 * Orders whose externalId or a parcel's barcode is the text or ends with it, or, for a text of
 * 4 to 15 digits (a leading + allowed), with a customer phone that is it or ends with it.
 */
export async function searchOrdersPage(db: Tx, text: string, q: { offset: number; limit: number }): Promise<{ items: OrderListRow[]; total: number }> {
  const suffix = `%${likeLiteral(text)}`;
  const digits = /^\+?\d{4,15}$/.test(text) ? text.replace(/^\+/, '') : null;
  const base = db.selectFrom('orders').where((eb) =>
    eb.or([
      eb('external_id', '=', text),
      like('external_id', suffix),
      eb.exists(eb.selectFrom('parcels').select('parcels.order_id').whereRef('parcels.order_id', '=', 'orders.id').where((p) => p.or([p('parcels.barcode', '=', text), like('parcels.barcode', suffix)]))),
      // Phones are kept as JSON text: a phone ending with the digits ends right before its closing quote.
      ...(digits !== null ? [like('notification', `%${digits}"%`)] : []),
    ]),
  );
  const total = await base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const rows = await base.select(ORDER_COLUMNS).orderBy('created_at', 'desc').orderBy('id').offset(q.offset).limit(q.limit).execute();
  return { total: Number(total.n), items: await withBarcodes(db, rows) };
}

// ---------------------------------------------------------------------------------------------
// One order's history
// ---------------------------------------------------------------------------------------------

export interface OrderApiCall {
  orderId: string;
  marketplaceId: string;
  operation: string;
  at: number;
  resultCode: number;
  requestId: string;
}

const insertApiCallRow = prepared((db, p: OrderApiCall) =>
  db.insertInto('order_api_calls').values({
    order_id: p.orderId,
    marketplace_id: p.marketplaceId,
    operation: p.operation,
    at: p.at,
    result_code: p.resultCode,
    request_id: p.requestId,
  }),
);

/** One call on an order known by id, deferred (db/prepared.ts): written with the operation's own transaction. */
export async function insertOrderApiCall(db: Tx, call: OrderApiCall): Promise<void> {
  await insertApiCallRow.defer(db, call);
}

/** An API call naming an order by the marketplace's externalId. */
export type OrderApiCallByExternalId = Omit<OrderApiCall, 'orderId'> & { externalId: string };

/** Records calls in two statements whatever their number: their orders' ids, then the rows. Calls naming no order are left out. */
export async function insertOrderApiCalls(db: Tx, calls: readonly OrderApiCallByExternalId[]): Promise<void> {
  if (calls.length === 0) return;
  const named = new Map(calls.map((c) => [`${c.marketplaceId}\n${c.externalId}`, c]));
  const orders = await db
    .selectFrom('orders')
    .select(['id', 'marketplace_id', 'external_id'])
    .where((eb) => eb(eb.refTuple('marketplace_id', 'external_id'), 'in', [...named.values()].map((c) => eb.tuple(c.marketplaceId, c.externalId))))
    .execute();
  const idOf = new Map(orders.map((o) => [`${o.marketplace_id}\n${o.external_id}`, o.id]));
  const rows = calls.flatMap((c) => {
    const orderId = idOf.get(`${c.marketplaceId}\n${c.externalId}`);
    return orderId === undefined
      ? []
      : [{ order_id: orderId, marketplace_id: c.marketplaceId, operation: c.operation, at: c.at, result_code: c.resultCode, request_id: c.requestId }];
  });
  if (rows.length > 0) await db.insertInto('order_api_calls').values(rows).execute();
}

export interface OrderHistory {
  apiCalls: OrderApiCall[];
  transitions: { seq: number; at: number; rule: string; event: string; fromState: number | null; toState: number; parcels: unknown }[];
  commands: { lockerId: number; cseq: number; type: string; createdAt: number; status: LoggedCommand['status'] }[];
  events: { lockerId: number; dseq: number; type: string; body: unknown; occurredAt: number; receivedAt: number }[];
  alerts: { id: number; lockerId: number; kind: string; severity: string; status: string; receivedAt: number; detail: unknown }[];
  notifications: { id: number; kind: string; createdAt: number; deliveredAt: number | null }[];
  attempts: { notificationId: number; at: number; status: number | null; error: string | null }[];
}

/** Everything recorded about one order; `lockerIds`: the lockers whose streams may name it. */
export async function orderHistory(db: Tx, orderId: string, lockerIds: readonly number[]): Promise<OrderHistory> {
  const named = `%${likeLiteral(JSON.stringify(orderId))}%`;
  const apiCalls = await db.selectFrom('order_api_calls').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
  const transitions = await db.selectFrom('order_transitions').selectAll().where('order_id', '=', orderId).orderBy('seq').execute();
  const commands =
    lockerIds.length === 0
      ? []
      : await db
          .selectFrom('locker_commands')
          .innerJoin('lockers', 'lockers.id', 'locker_commands.locker_id')
          .select(['locker_commands.locker_id', 'locker_commands.cseq', 'locker_commands.type', 'locker_commands.created_at', 'lockers.applied_cseq', 'lockers.sent_cseq'])
          .where('locker_commands.locker_id', 'in', [...lockerIds])
          .where(like('locker_commands.body', named))
          .orderBy('locker_commands.cseq')
          .execute();
  const events =
    lockerIds.length === 0
      ? []
      : await db.selectFrom('inbox_events').selectAll().where('locker_id', 'in', [...lockerIds]).where(like('body', named)).orderBy('dseq').execute();
  const alerts = await db.selectFrom('locker_alerts').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
  const notifications = await db.selectFrom('notifications').select(['id', 'kind', 'created_at', 'delivered_at']).where('order_id', '=', orderId).orderBy('id').execute();
  const attempts = await db.selectFrom('notification_attempts').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
  return {
    apiCalls: apiCalls.map((r) => ({ orderId: r.order_id, marketplaceId: r.marketplace_id, operation: r.operation, at: Number(r.at), resultCode: r.result_code, requestId: r.request_id })),
    transitions: transitions.map((r) => ({ seq: r.seq, at: Number(r.at), rule: r.rule, event: r.event, fromState: r.from_state, toState: r.to_state, parcels: JSON.parse(r.parcels) as unknown })),
    commands: commands.map((r) => {
      const cseq = Number(r.cseq);
      const applied = Number(r.applied_cseq);
      const status = cseq <= applied ? 'acked' : cseq <= Math.max(Number(r.sent_cseq), applied) ? 'sent' : 'pending';
      return { lockerId: r.locker_id, cseq, type: r.type, createdAt: Number(r.created_at), status };
    }),
    events: events.map((r) => ({ lockerId: r.locker_id, dseq: Number(r.dseq), type: r.type, body: JSON.parse(r.body) as unknown, occurredAt: Number(r.occurred_at), receivedAt: Number(r.received_at) })),
    alerts: alerts.map((r) => ({ id: Number(r.id), lockerId: r.locker_id, kind: r.kind, severity: r.severity, status: r.status, receivedAt: Number(r.received_at), detail: JSON.parse(r.detail) as unknown })),
    notifications: notifications.map((r) => ({ id: Number(r.id), kind: r.kind, createdAt: Number(r.created_at), deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at) })),
    attempts: attempts.map((r) => ({ notificationId: Number(r.notification_id), at: Number(r.at), status: r.status, error: r.error })),
  };
}

/** A notification as the order's summary tells it: what it said (never a code), and whether the marketplace got it. */
export interface NotificationOutcome {
  id: number;
  kind: string;
  /** order-status: the event id (2, 3, 4, 7); expiration-date-changes: the new end; user-access-code: nothing (the code is not shown). */
  said: string | null;
  createdAt: number;
  deliveredAt: number | null;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  failingSince: number | null;
}

export interface OrderSummaryRows {
  parcels: { barcode: string; state: string; cellId: number | null }[];
  notifications: NotificationOutcome[];
  lockerName: string | null;
  timezone: string | null;
}

/** What the fields of a notification's body say, without its code. */
function saidOf(kind: string, body: string): string | null {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  if (kind === 'order-status') return typeof parsed.event_id === 'string' ? parsed.event_id : null;
  if (kind === 'expiration-date-changes') return typeof parsed.expire_dt === 'string' ? parsed.expire_dt : null;
  return null;
}

/** The order's parcels with their cells, its notifications newest first, and its locker's name and time zone. */
export async function orderSummaryRows(db: Tx, orderId: string, lockerId: number): Promise<OrderSummaryRows> {
  const parcels = await db.selectFrom('parcels').select(['barcode', 'state', 'cell_id']).where('order_id', '=', orderId).orderBy('position').execute();
  const notifications = await db
    .selectFrom('notifications')
    .select(['id', 'kind', 'body', 'created_at', 'delivered_at', 'attempts', 'last_status', 'last_error', 'failing_since'])
    .where('order_id', '=', orderId)
    .orderBy('id', 'desc')
    .execute();
  const locker = await db.selectFrom('lockers').select(['name', 'timezone']).where('id', '=', lockerId).executeTakeFirst();
  return {
    parcels: parcels.map((p) => ({ barcode: p.barcode, state: p.state, cellId: p.cell_id })),
    notifications: notifications.map((n) => ({
      id: Number(n.id),
      kind: n.kind,
      said: saidOf(n.kind, n.body),
      createdAt: Number(n.created_at),
      deliveredAt: n.delivered_at === null ? null : Number(n.delivered_at),
      attempts: n.attempts,
      lastStatus: n.last_status,
      lastError: n.last_error,
      failingSince: n.failing_since === null ? null : Number(n.failing_since),
    })),
    lockerName: locker?.name ?? null,
    timezone: locker?.timezone ?? null,
  };
}

// ---------------------------------------------------------------------------------------------
// Storage ending today
// ---------------------------------------------------------------------------------------------

/** One time zone's today: lockers in `zone`, deadlines from `start` to `end` (inclusive). */
export interface ZoneDay {
  zone: string;
  start: number;
  end: number;
}

/** The time zones of the lockers that hold parcels waiting for pick-up. */
export async function zonesWithWaitingParcels(db: Tx): Promise<string[]> {
  const rows = await db
    .selectFrom('lockers')
    .select('timezone')
    .distinct()
    .where((eb) => eb.exists(eb.selectFrom('orders').select('orders.id').whereRef('orders.locker_id', '=', 'lockers.id').where('orders.state', '=', 3)))
    .execute();
  return rows.map((r) => r.timezone);
}

/**
 * Orders loaded and waiting for pick-up (state 3) whose storage ends within their locker's local
 * today (one ZoneDay per time zone), earliest deadline first.
 */
export async function storageEndingPage(db: Tx, days: readonly ZoneDay[], q: { offset: number; limit: number }): Promise<{ items: (OrderListRow & { lockerName: string })[]; total: number }> {
  if (days.length === 0) return { items: [], total: 0 };
  const base = db
    .selectFrom('orders')
    .innerJoin('lockers', 'lockers.id', 'orders.locker_id')
    .where('orders.state', '=', 3)
    .where((eb) => eb.or(days.map((d) => eb.and([eb('lockers.timezone', '=', d.zone), eb('orders.hold_until', '>=', d.start), eb('orders.hold_until', '<=', d.end)]))));
  const total = await base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const rows = await base
    .select([...ORDER_COLUMNS.map((c) => `orders.${c}` as const), 'lockers.name as locker_name'])
    .orderBy('orders.hold_until')
    .orderBy('orders.id')
    .offset(q.offset)
    .limit(q.limit)
    .execute();
  const names = new Map(rows.map((r) => [r.id, r.locker_name]));
  const items = await withBarcodes(db, rows);
  return { total: Number(total.n), items: items.map((o) => ({ ...o, lockerName: names.get(o.id) ?? '' })) };
}
