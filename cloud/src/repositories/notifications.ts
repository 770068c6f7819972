/**
 * The notifications outbox (table notifications) as a delivery queue and as operators see it.
 * Per order only the oldest undelivered notification (its head) may be attempted, so an order's
 * notifications arrive in the order they happened and an undelivered one holds back the later
 * ones of its order only. Claiming a head moves its next_attempt_at to a lease deadline in one
 * short transaction (PostgreSQL: FOR UPDATE SKIP LOCKED, so processes never wait for or take
 * each other's rows; SQLite: one process, BEGIN IMMEDIATE). The lease value doubles as the
 * claim's token: an attempt records its outcome only while its lease is still the row's, and a
 * process killed mid-attempt leaves a row that becomes due again when the lease runs out.
 */
import { uuidV7 } from '../random.js';
import { type ExpressionBuilder, sql } from 'kysely';
import { traceparentOf } from '../../../shared/src/tracing.js';
import type { CloudDatabase } from '../db/database.js';
import type { Database, NotificationRow } from '../db/schema.js';
import { prepared } from '../db/prepared.js';
import { transaction, type Tx } from '../db/transaction.js';

/** A notification an order's change owes its marketplace, as recorded in the change's transaction. */
export interface NewNotification {
  marketplaceId: string;
  orderId: string;
  kind: string;
  /** The JSON text that will be sent and signed. */
  body: string;
  /** X-Request-Id of the API call that caused it; null for background changes. */
  requestId: string | null;
}

/** A notification claimed for one delivery attempt. */
export interface ClaimedNotification {
  id: number;
  /** Stable id sent in a header so receivers can deduplicate. */
  uid: string;
  marketplaceId: string;
  orderId: string;
  /** 'order-status' | 'user-access-code' | 'expiration-date-changes' */
  kind: string;
  /** The notification object as JSON text, exactly the bytes sent (and signed). */
  bodyJson: string;
  createdAt: number;
  /** Attempts so far, this one included. */
  attempts: number;
  /** traceparent of the span that recorded it; null while tracing was off. */
  trace: string | null;
  /** The claim's lease: when the notification becomes due again if this attempt records nothing. */
  lease: number;
  failingSince: number | null;
  /** X-Request-Id of the API call that caused it, sent along; null when none did. */
  requestId: string | null;
}

/** A notification as operators see it. */
export interface StoredNotification {
  id: number;
  uid: string;
  marketplaceId: string;
  orderId: string;
  /** The order's externalId, when the order exists. */
  externalId: string | null;
  kind: string;
  body: unknown;
  createdAt: number;
  attempts: number;
  nextAttemptAt: number;
  lastAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  failingSince: number | null;
  deliveredAt: number | null;
  /** X-Request-Id of the API call that caused it; null when none did. */
  requestId: string | null;
}

export interface NotificationFilter {
  delivered?: boolean | undefined;
  /** Only undelivered ones marked failing. */
  failing?: true | undefined;
  marketplaceId?: string | undefined;
  /** The order's externalId or platform id. */
  orderRef?: string | undefined;
  /** Only rows with a smaller id (paging backwards). */
  beforeId?: number | undefined;
  limit: number;
}

/**
 * Which undelivered notifications an operator makes due now: by id; those marked failing (of one
 * marketplace, or all); every undelivered one of a marketplace's receiver; every one of an order.
 */
export type RedeliverTarget =
  | { ids: readonly number[] }
  | { failing: true; marketplaceId?: string | undefined }
  | { undelivered: true; marketplaceId: string }
  | { orderId: string };

type N = ExpressionBuilder<Database & { n: Database['notifications'] }, 'n'>;

/** No older undelivered notification of the same order. */
function isHead(eb: N) {
  return eb.not(
    eb.exists(
      eb
        .selectFrom('notifications as e')
        .select('e.id')
        .whereRef('e.order_id', '=', 'n.order_id')
        .where('e.delivered_at', 'is', null)
        .whereRef('e.id', '<', 'n.id'),
    ),
  );
}

function claimed(r: NotificationRow, lease: number): ClaimedNotification {
  return {
    id: r.id,
    uid: r.uid,
    marketplaceId: r.marketplace_id,
    orderId: r.order_id,
    kind: r.kind,
    bodyJson: r.body,
    createdAt: r.created_at,
    attempts: r.attempts + 1,
    trace: r.trace,
    lease,
    failingSince: r.failing_since,
    requestId: r.request_id,
  };
}

/** How many attempts one marketplace may have at once, and how many each has now. */
export interface ClaimShare {
  perMarketplace: number;
  busy: ReadonlyMap<string, number>;
}

/**
 * Claims up to `limit` due heads, in id order, until `now + leaseMs`; with `share`, no marketplace
 * gets more than its share (one whose receiver is slow leaves the rest to the others). Each
 * further query excludes the marketplaces that reached their share, so it runs at most once more
 * than there are marketplaces.
 */
export async function claimDue(cdb: CloudDatabase, now: number, limit: number, leaseMs: number, share?: ClaimShare): Promise<ClaimedNotification[]> {
  return transaction(cdb, async (tx) => {
    const taken = new Map(share?.busy ?? []);
    const full = (): string[] => (share ? [...taken].filter(([, n]) => n >= share.perMarketplace).map(([m]) => m) : []);
    const rows: NotificationRow[] = [];
    while (rows.length < limit) {
      let query = tx
        .selectFrom('notifications as n')
        .selectAll('n')
        .where('n.delivered_at', 'is', null)
        .where('n.next_attempt_at', '<=', now)
        .where(isHead)
        .orderBy('n.id')
        .limit(limit - rows.length);
      const excluded = full();
      if (excluded.length > 0) query = query.where('n.marketplace_id', 'not in', excluded);
      if (rows.length > 0) query = query.where('n.id', 'not in', rows.map((r) => r.id));
      if (cdb.engine === 'postgres') query = query.forUpdate().skipLocked();
      const found = await query.execute();
      let skipped = false;
      for (const r of found) {
        const n = taken.get(r.marketplace_id) ?? 0;
        if (share && n >= share.perMarketplace) {
          skipped = true;
          continue;
        }
        taken.set(r.marketplace_id, n + 1);
        rows.push(r);
      }
      if (!skipped) break;
    }
    if (rows.length === 0) return [];
    const lease = now + leaseMs;
    await tx
      .updateTable('notifications')
      .set((eb) => ({ next_attempt_at: lease, last_attempt_at: now, attempts: eb('attempts', '+', 1) }))
      .where('id', 'in', rows.map((r) => r.id))
      .execute();
    return rows.map((r) => claimed(r, lease));
  });
}

/** When the next head becomes due (null: nothing undelivered). */
/** Queues the notification, due at once; its uid is new. */
const insertNotificationRow = prepared(
  (db, p: { uid: string; marketplaceId: string; orderId: string; kind: string; body: string; at: number; requestId: string | null; trace: string | null }) =>
    db.insertInto('notifications').values({
      uid: p.uid,
      marketplace_id: p.marketplaceId,
      order_id: p.orderId,
      kind: p.kind,
      body: p.body,
      created_at: p.at,
      next_attempt_at: p.at,
      request_id: p.requestId,
      trace: p.trace,
    }),
);

/** Deferred (db/prepared.ts): nothing of it is read back in the recording transaction. */
export async function insertNotification(db: Tx, n: NewNotification, at: number): Promise<void> {
  await insertNotificationRow.defer(db, {
    uid: uuidV7(),
    marketplaceId: n.marketplaceId,
    orderId: n.orderId,
    kind: n.kind,
    body: n.body,
    at,
    requestId: n.requestId,
    // The recording span (tracing on): the delivery continues its trace.
    trace: traceparentOf() ?? null,
  });
}

export async function nextDueAt(db: Tx): Promise<number | null> {
  const row = await db
    .selectFrom('notifications as n')
    .select((eb) => eb.fn.min('n.next_attempt_at').as('due'))
    .where('n.delivered_at', 'is', null)
    .where(isHead)
    .executeTakeFirst();
  return row?.due === null || row?.due === undefined ? null : Number(row.due);
}

/** Marks the claimed notification delivered; false when its lease was no longer the row's. */
export async function markDelivered(db: Tx, n: ClaimedNotification, now: number): Promise<boolean> {
  const r = await db
    .updateTable('notifications')
    .set({ delivered_at: now, last_status: 200, last_error: null, failing_since: null })
    .where('id', '=', n.id)
    .where('delivered_at', 'is', null)
    .where('next_attempt_at', '=', n.lease)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Records a failed attempt and the next one; false when its lease was no longer the row's. */
export async function markFailed(
  db: Tx,
  n: ClaimedNotification,
  failure: { status: number | null; error: string; nextAttemptAt: number; failingSince: number | null },
): Promise<boolean> {
  const r = await db
    .updateTable('notifications')
    .set({ next_attempt_at: failure.nextAttemptAt, last_status: failure.status, last_error: failure.error, failing_since: failure.failingSince })
    .where('id', '=', n.id)
    .where('delivered_at', 'is', null)
    .where('next_attempt_at', '=', n.lease)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Newest first. */
export async function listNotifications(db: Tx, f: NotificationFilter): Promise<StoredNotification[]> {
  let query = db
    .selectFrom('notifications as n')
    .leftJoin('orders as o', 'o.id', 'n.order_id')
    .selectAll('n')
    .select('o.external_id')
    .orderBy('n.id', 'desc')
    .limit(f.limit);
  if (f.delivered === false) query = query.where('n.delivered_at', 'is', null);
  if (f.delivered === true) query = query.where('n.delivered_at', 'is not', null);
  if (f.failing) query = query.where('n.failing_since', 'is not', null);
  if (f.marketplaceId !== undefined) query = query.where('n.marketplace_id', '=', f.marketplaceId);
  if (f.orderRef !== undefined) {
    const ref = f.orderRef;
    query = query.where((eb) => eb.or([eb('o.external_id', '=', ref), eb('n.order_id', '=', ref)]));
  }
  if (f.beforeId !== undefined) query = query.where('n.id', '<', f.beforeId);
  const rows = await query.execute();
  return rows.map((r) => ({
    id: r.id,
    uid: r.uid,
    marketplaceId: r.marketplace_id,
    orderId: r.order_id,
    externalId: r.external_id,
    kind: r.kind,
    body: JSON.parse(r.body) as unknown,
    createdAt: r.created_at,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastAttemptAt: r.last_attempt_at,
    lastStatus: r.last_status,
    lastError: r.last_error,
    failingSince: r.failing_since,
    deliveredAt: r.delivered_at,
    requestId: r.request_id,
  }));
}

/**
 * Makes every undelivered notification of the target's orders due at `now` and clears their
 * failing mark, in one transaction.
 */
export async function makeOrdersDue(cdb: CloudDatabase, now: number, target: RedeliverTarget): Promise<{ orders: number; notifications: number }> {
  return transaction(cdb, (tx) => makeOrdersDueIn(tx, now, target));
}

/** makeOrdersDue in the caller's transaction; also the orders it chose. */
export async function makeOrdersDueIn(tx: Tx, now: number, target: RedeliverTarget): Promise<{ orders: number; notifications: number; orderIds: string[] }> {
  let chosen = tx.selectFrom('notifications').select('order_id').distinct().where('delivered_at', 'is', null);
  if ('ids' in target) {
    if (target.ids.length === 0) return { orders: 0, notifications: 0, orderIds: [] };
    chosen = chosen.where('id', 'in', [...target.ids]);
  } else if ('orderId' in target) {
    chosen = chosen.where('order_id', '=', target.orderId);
  } else if ('undelivered' in target) {
    chosen = chosen.where('marketplace_id', '=', target.marketplaceId);
  } else {
    chosen = chosen.where('failing_since', 'is not', null);
    if (target.marketplaceId !== undefined) chosen = chosen.where('marketplace_id', '=', target.marketplaceId);
  }
  const orders = (await chosen.execute()).map((r) => r.order_id);
  if (orders.length === 0) return { orders: 0, notifications: 0, orderIds: [] };
  const r = await tx
    .updateTable('notifications')
    .set({ next_attempt_at: now, failing_since: null })
    .where('order_id', 'in', orders)
    .where('delivered_at', 'is', null)
    .executeTakeFirst();
  return { orders: orders.length, notifications: Number(r.numUpdatedRows), orderIds: orders };
}

export interface NotificationAttempt {
  notificationId: number;
  orderId: string;
  at: number;
  /** HTTP status; null when no answer came. */
  status: number | null;
  /** Null when delivered. */
  error: string | null;
}

/** One delivery attempt and the receiver's answer (the order's timeline shows each). */
export async function insertAttempt(db: Tx, a: NotificationAttempt): Promise<void> {
  await db.insertInto('notification_attempts').values({ notification_id: a.notificationId, order_id: a.orderId, at: a.at, status: a.status, error: a.error }).execute();
}

/**
 * The sandbox: every undelivered notification of the marketplace not yet due becomes due at `now`
 * (its receiver is back, or the integrator asked for delivery now); returns how many.
 */
export async function makeMarketplaceDue(db: Tx, now: number, marketplaceId: string): Promise<number> {
  const r = await db
    .updateTable('notifications')
    .set({ next_attempt_at: now })
    .where('marketplace_id', '=', marketplaceId)
    .where('delivered_at', 'is', null)
    .where('next_attempt_at', '>', now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** The marketplace's undelivered heads (one per order) that have had no finished attempt since `since`. */
export async function headsUnattemptedSince(db: Tx, marketplaceId: string, since: number): Promise<number> {
  const row = await db
    .selectFrom('notifications as n')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('n.marketplace_id', '=', marketplaceId)
    .where('n.delivered_at', 'is', null)
    .where(isHead)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('notification_attempts as a').select('a.id').whereRef('a.notification_id', '=', 'n.id').where('a.at', '>=', since))))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** How many notifications of the marketplace are undelivered. */
export async function undeliveredCount(db: Tx, marketplaceId: string): Promise<number> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('marketplace_id', '=', marketplaceId)
    .where('delivered_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A marketplace's receiver as its latest attempts show it (repositories' part of the receivers view). */
export interface ReceiverRow {
  marketplaceId: string;
  undelivered: number;
  /** Undelivered past the failing limit (NOTIFY_FAILING_AFTER_SECONDS). */
  markedFailing: number;
  oldestUndeliveredAt: number | null;
  lastAttemptAt: number | null;
  /** The latest attempt's answer: delivered, or its HTTP status (null: no answer) and error. */
  lastDelivered: boolean | null;
  lastStatus: number | null;
  lastError: string | null;
  lastDeliveredAt: number | null;
}

/** Every marketplace with a receiver, with its backlog and its latest attempt (one grouped query, then one row per marketplace). */
export async function receiverRows(db: Tx): Promise<ReceiverRow[]> {
  const marketplaces = await db.selectFrom('marketplaces').select('id').where('receiver_url', 'is not', null).orderBy('id').execute();
  const counts = await db
    .selectFrom('notifications')
    .select((eb) => [
      'marketplace_id',
      sql<number | string>`count(case when delivered_at is null then 1 end)`.as('undelivered'),
      sql<number | string>`count(case when delivered_at is null and failing_since is not null then 1 end)`.as('failing'),
      sql<number | string | null>`min(case when delivered_at is null then created_at end)`.as('oldest'),
      eb.fn.max<number | string | null>('delivered_at').as('last_delivered'),
    ])
    .groupBy('marketplace_id')
    .execute();
  const byId = new Map(counts.map((c) => [c.marketplace_id, c]));
  const out: ReceiverRow[] = [];
  for (const { id } of marketplaces) {
    const latest = await db
      .selectFrom('notifications')
      .select(['last_attempt_at', 'delivered_at', 'last_status', 'last_error'])
      .where('marketplace_id', '=', id)
      .where('last_attempt_at', 'is not', null)
      .orderBy('last_attempt_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    const c = byId.get(id);
    const num = (v: number | string | null | undefined): number | null => (v === null || v === undefined ? null : Number(v));
    out.push({
      marketplaceId: id,
      undelivered: Number(c?.undelivered ?? 0),
      markedFailing: Number(c?.failing ?? 0),
      oldestUndeliveredAt: num(c?.oldest),
      lastAttemptAt: num(latest?.last_attempt_at),
      // The latest attempted notification was delivered by that attempt when it has a delivery time;
      // without one and without an error, its first attempt is still in flight (not a failure).
      lastDelivered: latest ? latest.delivered_at !== null || latest.last_error === null : null,
      lastStatus: latest?.last_status ?? null,
      lastError: latest && latest.delivered_at === null ? latest.last_error : null,
      lastDeliveredAt: num(c?.last_delivered),
    });
  }
  return out;
}

/** Whether a marketplace's last `n` delivery attempts, whichever notifications, all failed (fewer than `n` attempts: no). */
export async function lastAttemptsFailed(db: Tx, marketplaceId: string, n: number): Promise<boolean> {
  const rows = await db
    .selectFrom('notification_attempts as a')
    .innerJoin('notifications as n', 'n.id', 'a.notification_id')
    .select('a.error')
    .where('n.marketplace_id', '=', marketplaceId)
    .orderBy('a.id', 'desc')
    .limit(n)
    .execute();
  return rows.length === n && rows.every((r) => r.error !== null);
}
