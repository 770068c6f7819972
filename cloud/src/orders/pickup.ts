/**
 * Entering Courier loaded (3): the storage clock starts, the customer's pick-up code is issued and
 * the marketplace is told both (user-access-code, expiration-date-changes). Called when the last
 * non-cancelled parcel of an order is in its cell: by the locker link when a load completes the
 * order, and by place/cancel when cancelling the last unloaded position does.
 */
import { CodeKind, OrderState } from '../../../shared/src/enums.js';
import { codeHash } from '../../../shared/src/codes.js';
import type { LockerRow, MarketplaceRow, OrderRow } from '../db/schema.js';
import type { Tx } from '../db/transaction.js';
import { isoWithOffset } from '../lockers/locker-time.js';
import { calendarOf } from '../lockers/working-days.js';
import type { NotificationDraft } from '../outbox/record-change.js';
import type { RandomSource } from '../random.js';
import { storageDeadline } from './deadline.js';

const MAX_CODE_ATTEMPTS = 50;

/** A fresh pick-up code, unique among the locker's active pick-up codes. */
export async function newPickupCode(tx: Tx, random: RandomSource, lockerId: number, length: number): Promise<{ code: string; hash: string }> {
  for (let i = 0; i < MAX_CODE_ATTEMPTS; i++) {
    const code = random.digits(length);
    const hash = codeHash(CodeKind.Customer, String(lockerId), code);
    const taken = await tx
      .selectFrom('orders')
      .select('id')
      .where('locker_id', '=', lockerId)
      .where('pickup_code_hash', '=', hash)
      .executeTakeFirst();
    if (!taken) return { code, hash };
  }
  throw new Error(`no free pick-up code at locker ${lockerId} after ${MAX_CODE_ATTEMPTS} attempts`);
}

export interface CourierLoadedChange {
  /** Columns of the order to write. */
  update: Pick<OrderRow, 'state' | 'loaded_at' | 'hold_until' | 'pickup_code_hash' | 'state_changed_at' | 'updated_at'>;
  notifications: NotificationDraft[];
}

export async function enterCourierLoaded(
  tx: Tx,
  deps: { random: RandomSource; pickupCodeLength: number },
  order: OrderRow,
  locker: LockerRow,
  marketplace: MarketplaceRow,
  at: number,
): Promise<CourierLoadedChange> {
  const { code, hash } = await newPickupCode(tx, deps.random, locker.id, deps.pickupCodeLength);
  const holdUntil = storageDeadline(at, marketplace.storage_period_hours, calendarOf(locker));
  const base = { marketplaceId: order.marketplace_id, orderId: order.id };
  return {
    update: { state: OrderState.CourierLoaded, loaded_at: at, hold_until: holdUntil, pickup_code_hash: hash, state_changed_at: at, updated_at: at },
    notifications: [
      { ...base, kind: 'user-access-code', body: { id: order.external_id, postamat_id: String(locker.id), access_code: code } },
      {
        ...base,
        kind: 'expiration-date-changes',
        body: { id: order.external_id, event_dt: isoWithOffset(at, locker.timezone), expire_dt: isoWithOffset(holdUntil, locker.timezone) },
      },
    ],
  };
}
