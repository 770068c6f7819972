/**
 * Which local dates a locker does not work. Used by the storage deadline (a deadline on such a
 * day moves to the next working day). Precedence, first match wins (docs/decisions.md):
 * 1. `daysOfExclusion`: the locker is out of service that day -> non-working;
 * 2. a `specialDays.days` entry for the date -> its `nonWorking` flag;
 * 3. a holiday -> non-working, unless the profile gives `holiday` hours;
 * 4. the weekly profile: when any weekday has hours, a weekday without hours is non-working;
 *    a profile with only `everyDay` hours, an inactive profile or none at all works every day.
 */
import { weekdayOf, WEEKDAYS } from './locker-time.js';
import type { LockerProfile, SpecialDays, WorkTimeProfile } from './profile.js';

export interface LockerCalendar {
  timezone: string;
  workTimeProfile: WorkTimeProfile | null;
  specialDays: SpecialDays;
}

export function isNonWorkingDay(date: string, calendar: LockerCalendar): boolean {
  const { specialDays, workTimeProfile: profile } = calendar;
  if (specialDays.daysOfExclusion.some((d) => d.date === date)) return true;
  const special = specialDays.days.find((d) => d.date === date);
  if (special) return special.nonWorking;
  if (specialDays.holidays.some((h) => h.day === date)) return !profile?.holiday;
  if (!profile || !profile.active) return false;
  const perDay = WEEKDAYS.some((d) => profile[d] !== undefined);
  if (!perDay) return false;
  return profile[weekdayOf(date)] === undefined;
}

export function calendarOf(locker: { timezone: string; profile: LockerProfile }): LockerCalendar {
  const { profile } = locker;
  return { timezone: locker.timezone, workTimeProfile: profile.workTimeProfile, specialDays: profile.specialDays };
}
