import { DateTime } from 'luxon';
import type { LockerStore } from '../store/index.js';

/** Lockers without a `locker.config` yet use the platform's default zone. */
export const DEFAULT_TIMEZONE = 'Europe/Moscow';

export function lockerZone(store: LockerStore): string {
  return store.settings()?.timezone ?? DEFAULT_TIMEZONE;
}

/** The calendar date (YYYY-MM-DD) at `now` in the locker's time zone. */
export function lockerDay(now: number, zone: string): string {
  const dt = DateTime.fromMillis(now, { zone });
  return (dt.isValid ? dt : DateTime.fromMillis(now, { zone: DEFAULT_TIMEZONE })).toISODate()!;
}
