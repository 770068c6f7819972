/** Checks of the target locker and delivery date shared by create and update. */
import type { Tx } from '../db/transaction.js';
import { invalidRequest } from '../errors.js';
import { localDate } from '../lockers/locker-time.js';
import { findLocker, type Locker } from '../repositories/lockers.js';
import { seesLocker } from '../sandbox/isolation.js';

/** The locker an order of `marketplace` may be delivered to: known to it and active (else code 3). */
export async function lockerForOrders(db: Tx, lockerId: number, marketplace: { sandbox: boolean }): Promise<Locker> {
  return checkLockerForOrders(await findLocker(db, lockerId), lockerId, marketplace);
}

/** lockerForOrders on a locker already read (undefined: none of that id). */
export function checkLockerForOrders(locker: Locker | undefined, lockerId: number, marketplace: { sandbox: boolean }): Locker {
  if (!locker || !seesLocker(marketplace, locker)) throw invalidRequest({ ru: `postamatId ${lockerId} не найден`, en: `postamatId ${lockerId} not found` });
  if (!locker.active) throw invalidRequest({ ru: `postamatId ${lockerId} не активен`, en: `postamatId ${lockerId} is not active` });
  return locker;
}

/** dateDelivery may not lie before the locker's today (code 3). */
export function checkDeliveryDate(dateDelivery: string, locker: Locker, now: number): void {
  const today = localDate(now, locker.timezone);
  if (dateDelivery < today) throw invalidRequest({ ru: `dateDelivery ${dateDelivery} раньше текущей даты постамата ${today}`, en: `dateDelivery ${dateDelivery} is before the postamat's current date ${today}` });
}
