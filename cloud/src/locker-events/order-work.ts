/**
 * One order changed by one fact: the rows as read, the rows as the fact leaves them, and what the
 * change owes (notifications, commands). `saveOrderWork` hands it to the order lifecycle, which
 * decides the order's state from its parcels (lifecycle/table.ts) and writes everything.
 */
import type { OrderRow, ParcelRow } from '../db/schema.js';
import { applyTransition } from '../lifecycle/apply.js';
import type { LifecycleEvent } from '../lifecycle/table.js';
import type { LockerCommandDraft, NotificationDraft } from '../outbox/record-change.js';
import { reservationRule, type EventContext } from './context.js';

export interface OrderWork {
  before: OrderRow;
  order: OrderRow;
  parcelsBefore: readonly ParcelRow[];
  parcels: ParcelRow[];
  notifications: NotificationDraft[];
  commands: LockerCommandDraft[];
}

export function orderWork(order: OrderRow, parcels: readonly ParcelRow[]): OrderWork {
  return { before: order, order: { ...order }, parcelsBefore: parcels, parcels: [...parcels], notifications: [], commands: [] };
}

/** Puts `row` in place of the order's parcel with the same barcode, or adds it. */
export function setParcel(work: OrderWork, row: ParcelRow): ParcelRow {
  const i = work.parcels.findIndex((p) => p.barcode === row.barcode);
  if (i < 0) work.parcels.push(row);
  else work.parcels[i] = row;
  return row;
}

export async function saveOrderWork(ctx: EventContext, work: OrderWork, event: LifecycleEvent): Promise<void> {
  const applied = await applyTransition(
    ctx.tx,
    { random: ctx.deps.random, pickupCodeLength: ctx.deps.config.pickupCodeLength },
    {
      event,
      before: work.before,
      order: work.order,
      parcelsBefore: work.parcelsBefore,
      parcels: work.parcels,
      locker: ctx.locker,
      at: ctx.now,
      notifications: work.notifications,
      commands: work.commands,
      reservation: reservationRule(ctx),
    },
  );
  for (const c of work.commands) if (c.lockerId !== ctx.locker.id) ctx.commandsFor.add(c.lockerId);
  // Operators watching the order live see its new state (as for changes made through the API).
  ctx.live.push({ type: 'order', orderId: applied.order.id, lockerId: applied.order.locker_id, state: applied.order.state, rule: applied.rule.id });
}
