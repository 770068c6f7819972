/**
 * One order changed by one fact: the rows as read, the changes made to them in memory, and what
 * the change owes (notifications, commands). `settleOrder` derives the order's state from its
 * parcels; `saveOrderWork` writes everything through saveOrderChange.
 */
import { OrderState, ParcelState, TERMINAL_ORDER_STATES, type OrderState as OrderStateValue } from '../../../shared/src/enums.js';
import type { OrderRow, ParcelRow } from '../db/schema.js';
import { saveOrderChange } from '../expiry/order-change.js';
import { initiateReturn } from '../expiry/return-flow.js';
import { enterCourierLoaded } from '../orders/pickup.js';
import type { LockerCommandDraft, NotificationDraft } from '../outbox/record-change.js';
import { reservationRule, type EventContext } from './context.js';

export interface OrderWork {
  before: OrderRow;
  order: OrderRow;
  parcels: ParcelRow[];
  changed: Set<ParcelRow>;
  notifications: NotificationDraft[];
  commands: LockerCommandDraft[];
}

export function orderWork(order: OrderRow, parcels: ParcelRow[]): OrderWork {
  return { before: order, order: { ...order }, parcels, changed: new Set(), notifications: [], commands: [] };
}

export function setParcel(work: OrderWork, parcel: ParcelRow, fields: Partial<Pick<ParcelRow, 'state' | 'cell_id' | 'loaded_at'>>, at: number): void {
  Object.assign(parcel, fields, { updated_at: at });
  work.changed.add(parcel);
}

/** How the parcel that changed last moved: it decides the terminal state when the locker is emptied. */
export type Movement = 'loaded' | 'received' | 'returned';

/**
 * The order's state after a parcel moved:
 * - New whose every remaining position is now loaded -> Courier loaded (pick-up code, deadline);
 * - nothing left for the customer and nothing still to come, but parcels to return in the
 *   locker -> Return initiated (6), unless already in 6 or 7;
 * - nothing of it left in the locker -> Client received (2) when a customer took the last
 *   parcel, Courier picked up (4) when a courier did;
 * - otherwise the state stays.
 */
export async function settleOrder(ctx: EventContext, work: OrderWork, movement: Movement): Promise<void> {
  const count = (s: ParcelState): number => work.parcels.filter((p) => p.state === s).length;
  const pending = count(ParcelState.Pending);
  const loaded = count(ParcelState.Loaded);
  const toReturn = count(ParcelState.AwaitingReturn);
  const state = work.order.state as OrderStateValue;
  const { now } = ctx;

  if (state === OrderState.New && pending === 0 && loaded > 0) {
    const marketplace = await ctx.tx.selectFrom('marketplaces').selectAll().where('id', '=', work.order.marketplace_id).executeTakeFirstOrThrow();
    const change = await enterCourierLoaded(
      ctx.tx,
      { random: ctx.deps.random, pickupCodeLength: ctx.deps.config.pickupCodeLength },
      work.order,
      ctx.locker,
      marketplace,
      now,
    );
    work.order = { ...work.order, ...change.update };
    work.notifications.push(...change.notifications);
    return;
  }
  if (pending > 0 || loaded > 0) return;
  if (toReturn > 0) {
    if (state === OrderState.ReturnInitiated || state === OrderState.AwaitingReturn) return;
    const step = initiateReturn(work.order, work.parcels, now);
    work.order = step.order;
    for (const p of step.changed) work.changed.add(p);
    return;
  }
  if (TERMINAL_ORDER_STATES.has(state) || movement === 'loaded') return;
  const terminal = movement === 'received' ? OrderState.ClientReceived : OrderState.CourierPickedUp;
  work.order = { ...work.order, state: terminal, pickup_code_hash: null, state_changed_at: now, updated_at: now };
}

export async function saveOrderWork(ctx: EventContext, work: OrderWork): Promise<void> {
  await saveOrderChange(ctx.tx, {
    before: work.before,
    order: work.order,
    parcels: work.parcels,
    changed: work.changed,
    notifications: work.notifications,
    commands: work.commands,
    at: ctx.now,
    reservation: reservationRule(ctx),
  });
  for (const c of work.commands) if (c.lockerId !== ctx.locker.id) ctx.commandsFor.add(c.lockerId);
}
