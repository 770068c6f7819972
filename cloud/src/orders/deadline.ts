/**
 * The one storage deadline rule. It gives `holdUntil` when an order becomes Courier loaded, the
 * extension's `date_storage` and the notification's `expire_dt`.
 *
 * Spec: "When the storage end falls on a non-working day, the storage is extended by as many days
 * as there are non-working days." Read as: start + period; while the end's local date is a
 * non-working day of the locker, move the end one local day later at the same wall-clock time.
 */
import { localDate, plusLocalDays } from '../lockers/locker-time.js';
import { isNonWorkingDay, type LockerCalendar } from '../lockers/working-days.js';

const HOUR_MS = 3_600_000;
/** Extension of the spec's extension operation. */
export const EXTENSION_HOURS = 72;
/** A locker that never works must not loop forever; a year is the furthest a deadline moves. */
const MAX_PUSHED_DAYS = 366;

function pushPastNonWorkingDays(end: number, calendar: LockerCalendar): number {
  let result = end;
  for (let i = 0; i < MAX_PUSHED_DAYS && isNonWorkingDay(localDate(result, calendar.timezone), calendar); i++) {
    result = plusLocalDays(result, 1, calendar.timezone);
  }
  return result;
}

/** End of storage of an order loaded at `loadedAt`, with the marketplace's storage period. */
export function storageDeadline(loadedAt: number, storagePeriodHours: number, calendar: LockerCalendar): number {
  return pushPastNonWorkingDays(loadedAt + storagePeriodHours * HOUR_MS, calendar);
}

/**
 * End of storage after one extension of an order whose storage currently ends at `holdUntil`:
 * the operation's 72 hours, or as many as an operator gives.
 */
export function extendedDeadline(holdUntil: number, calendar: LockerCalendar, hours: number = EXTENSION_HOURS): number {
  return pushPastNonWorkingDays(holdUntil + hours * HOUR_MS, calendar);
}
