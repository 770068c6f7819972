/**
 * Locker-local time. Every locker has an IANA time zone; delivery dates, route-sheet validity,
 * storage deadlines and non-working days are all read in it (docs/decisions.md).
 * Instants are epoch milliseconds; calendar dates are `YYYY-MM-DD`.
 */
import { DateTime, IANAZone } from 'luxon';

export const DEFAULT_TIMEZONE = 'Europe/Moscow';

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Zones already judged: luxon builds an Intl.DateTimeFormat for every check (ms each, per locker of a fleet file). */
const zoneValidity = new Map<string, boolean>();

export function isValidTimezone(zone: string): boolean {
  let valid = zoneValidity.get(zone);
  if (valid === undefined) {
    valid = IANAZone.isValidZone(zone);
    if (zoneValidity.size < 1_000) zoneValidity.set(zone, valid);
  }
  return valid;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** A real calendar date in `YYYY-MM-DD` form (rejects 2024-02-30); proleptic Gregorian, as luxon reads it. */
export function isCalendarDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

function day(date: string, zone: string): DateTime {
  const dt = DateTime.fromISO(date, { zone });
  if (!dt.isValid) throw new RangeError(`not a calendar date: ${date}`);
  return dt;
}

/** The local day last asked of each zone: requests of one day ask the same, and luxon's offset lookup is dear. */
const lastDays = new Map<string, { date: string; start: number; end: number }>();

/** The locker's calendar date at an instant. */
export function localDate(instant: number, zone: string): string {
  const last = lastDays.get(zone);
  if (last && instant >= last.start && instant <= last.end) return last.date;
  const date = DateTime.fromMillis(instant, { zone }).toISODate()!;
  if (lastDays.size >= MAX_DAY_BOUNDS) lastDays.clear();
  lastDays.set(zone, { date, start: startOfLocalDay(date, zone), end: endOfLocalDay(date, zone) });
  return date;
}

/**
 * The bounds of local days, kept by zone and date: luxon computes a zone's offset through
 * Intl.DateTimeFormat, some 6 % of the CPU of an order's creation (every reservation's expiry is the
 * end of its delivery date). Pure for a given tz database; cleared when full.
 */
const dayBounds = new Map<string, number>();
const MAX_DAY_BOUNDS = 10_000;

function dayBound(date: string, zone: string, edge: 'startOf' | 'endOf'): number {
  const key = `${edge} ${zone} ${date}`;
  let bound = dayBounds.get(key);
  if (bound === undefined) {
    bound = day(date, zone)[edge]('day').toMillis();
    if (dayBounds.size >= MAX_DAY_BOUNDS) dayBounds.clear();
    dayBounds.set(key, bound);
  }
  return bound;
}

/** First millisecond of a local date. */
export function startOfLocalDay(date: string, zone: string): number {
  return dayBound(date, zone, 'startOf');
}

/** Last millisecond of a local date (23:59:59.999 locker time, whatever the day's length). */
export function endOfLocalDay(date: string, zone: string): number {
  return dayBound(date, zone, 'endOf');
}

/** ISO 8601 with the locker's offset, to the second (milliseconds cut), e.g. 2024-05-01T14:00:00+03:00. */
export function isoWithOffset(instant: number, zone: string): string {
  return DateTime.fromMillis(Math.floor(instant / 1000) * 1000, { zone }).toISO({ suppressMilliseconds: true })!;
}

/** A calendar date moved by whole days (calendar arithmetic, no time zone involved). */
export function addDays(date: string, days: number): string {
  return day(date, 'UTC').plus({ days }).toISODate()!;
}

export function weekdayOf(date: string): Weekday {
  return WEEKDAYS[day(date, 'UTC').weekday - 1]!;
}

/** The same local wall-clock time `days` calendar days later (keeps 14:00 across a DST change). */
export function plusLocalDays(instant: number, days: number, zone: string): number {
  return DateTime.fromMillis(instant, { zone }).plus({ days }).toMillis();
}
