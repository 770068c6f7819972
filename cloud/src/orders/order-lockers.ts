/** Checks of the target locker and delivery date shared by create and update. */
import type { Tx } from '../db/transaction.js';
import { invalidRequest } from '../errors.js';
import { localDate } from '../lockers/locker-time.js';
import { findLocker, type Locker } from '../repositories/lockers.js';

/** The locker an order may be delivered to: known and active (else code 3). */
export async function lockerForOrders(db: Tx, lockerId: number): Promise<Locker> {
  const locker = await findLocker(db, lockerId);
  if (!locker) throw invalidRequest(`postamatId ${lockerId} not found`);
  if (!locker.active) throw invalidRequest(`postamatId ${lockerId} is not active`);
  return locker;
}

/** dateDelivery may not lie before the locker's today (code 3). */
export function checkDeliveryDate(dateDelivery: string, locker: Locker, now: number): void {
  const today = localDate(now, locker.timezone);
  if (dateDelivery < today) throw invalidRequest(`dateDelivery ${dateDelivery} is before the postamat's current date ${today}`);
}
