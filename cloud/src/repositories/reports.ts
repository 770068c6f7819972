/**
 * The reads of the operator reports (operator/reports.ts): the lockers' link history, the order
 * transitions that are deliveries, pick-ups, returns and failed deliveries, and the parcel moves
 * in and out of the lockers. Figures are worked out by the caller; here are only rows.
 */
import { sql } from 'kysely';
import { OrderState, ParcelState } from '../../../shared/src/enums.js';
import type { Tx } from '../db/transaction.js';

export interface LinkChange {
  lockerId: number;
  at: number;
  online: boolean;
}

/** Each locker's link state at `at`: the latest change before it (a locker without one was never seen). */
export async function linkStatesBefore(db: Tx, at: number): Promise<Map<number, boolean>> {
  const rows = await db
    .selectFrom('lockers as l')
    .select((eb) => [
      'l.id',
      eb
        .selectFrom('locker_link_history as h')
        .select('h.online')
        .whereRef('h.locker_id', '=', 'l.id')
        .where('h.at', '<', at)
        .orderBy('h.at', 'desc')
        .orderBy('h.id', 'desc')
        .limit(1)
        .as('online'),
    ])
    .execute();
  return new Map(rows.filter((r) => r.online !== null).map((r) => [r.id, r.online === 1]));
}

/** Link changes in [from, to), per locker in the order they happened. */
export async function linkChangesBetween(db: Tx, from: number, to: number): Promise<LinkChange[]> {
  const rows = await db
    .selectFrom('locker_link_history')
    .select(['locker_id', 'at', 'online'])
    .where('at', '>=', from)
    .where('at', '<', to)
    .orderBy('locker_id')
    .orderBy('at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ lockerId: r.locker_id, at: Number(r.at), online: r.online === 1 }));
}

/** A state change of an order that the reports count. */
export interface OrderOutcome {
  lockerId: number;
  marketplaceId: string;
  at: number;
  event: string;
  fromState: number | null;
  toState: number;
  /** When the order last entered Courier loaded (3) before this change; null: never. */
  loadedAt: number | null;
}

/**
 * The changes in [from, to) that enter 3 (a delivery), 2 (a pick-up) or 4 (a return collected by
 * the courier), and those leaving 3 for 6 (a failed delivery), of one locker or of all.
 */
export async function orderOutcomesBetween(db: Tx, from: number, to: number, lockerId?: number): Promise<OrderOutcome[]> {
  const { CourierLoaded: loaded, ClientReceived, CourierPickedUp, ReturnInitiated } = OrderState;
  let q = db
    .selectFrom('order_transitions as t')
    .innerJoin('orders as o', 'o.id', 't.order_id')
    .select((eb) => [
      'o.locker_id',
      'o.marketplace_id',
      't.at',
      't.event',
      't.from_state',
      't.to_state',
      eb
        .selectFrom('order_transitions as l')
        .select((s) => s.fn.max('l.at').as('at'))
        .whereRef('l.order_id', '=', 't.order_id')
        .whereRef('l.seq', '<', 't.seq')
        .where('l.to_state', '=', loaded)
        .where((w) => w.or([w('l.from_state', 'is', null), w('l.from_state', '!=', loaded)]))
        .as('loaded_at'),
    ])
    .where('t.at', '>=', from)
    .where('t.at', '<', to)
    .where((eb) =>
      eb.or([
        eb.and([eb('t.to_state', 'in', [loaded, ClientReceived, CourierPickedUp]), eb.or([eb('t.from_state', 'is', null), eb('t.from_state', '!=', eb.ref('t.to_state'))])]),
        eb.and([eb('t.from_state', '=', loaded), eb('t.to_state', '=', ReturnInitiated)]),
      ]),
    );
  if (lockerId !== undefined) q = q.where('o.locker_id', '=', lockerId);
  const rows = await q.execute();
  return rows.map((r) => ({
    lockerId: r.locker_id,
    marketplaceId: r.marketplace_id,
    at: Number(r.at),
    event: r.event,
    fromState: r.from_state,
    toState: r.to_state,
    loadedAt: r.loaded_at === null || r.loaded_at === undefined ? null : Number(r.loaded_at),
  }));
}

/** Parcel states in which a parcel is in its cell. */
const IN_LOCKER: ReadonlySet<string> = new Set([ParcelState.Loaded, ParcelState.AwaitingReturn]);

/** A parcel put into (+1) or taken out of (-1) a locker. */
export interface ParcelMove {
  lockerId: number;
  at: number;
  delta: 1 | -1;
}

/** Parcels put into or taken out of the lockers (or one locker) at or after `since`. */
export async function parcelMovesSince(db: Tx, since: number, lockerId?: number): Promise<ParcelMove[]> {
  let q = db
    .selectFrom('order_transitions as t')
    .innerJoin('orders as o', 'o.id', 't.order_id')
    .select(['o.locker_id', 't.at', 't.parcels'])
    .where('t.at', '>=', since)
    .where('t.parcels', '!=', '[]');
  if (lockerId !== undefined) q = q.where('o.locker_id', '=', lockerId);
  const moves: ParcelMove[] = [];
  for (const r of await q.execute()) {
    for (const p of JSON.parse(r.parcels) as { from: string | null; to: string }[]) {
      const was = p.from !== null && IN_LOCKER.has(p.from);
      const is = IN_LOCKER.has(p.to);
      if (was !== is) moves.push({ lockerId: r.locker_id, at: Number(r.at), delta: is ? 1 : -1 });
    }
  }
  return moves;
}

/** Parcels in each locker's cells now (loaded or awaiting return). */
export async function parcelsInLockers(db: Tx): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom('parcels as p')
    .innerJoin('orders as o', 'o.id', 'p.order_id')
    .select(['o.locker_id', sql<number>`count(*)`.as('n')])
    .where('p.state', 'in', [...IN_LOCKER])
    .groupBy('o.locker_id')
    .execute();
  return new Map(rows.map((r) => [r.locker_id, Number(r.n)]));
}

/** Each marketplace's storage period, hours. */
export async function storagePeriods(db: Tx): Promise<Map<string, number>> {
  const rows = await db.selectFrom('marketplaces').select(['id', 'storage_period_hours']).execute();
  return new Map(rows.map((r) => [r.id, r.storage_period_hours]));
}
