import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extendedDeadline, storageDeadline } from '../../cloud/src/orders/deadline.js';
import { addDays, endOfLocalDay, isoWithOffset, localDate, startOfLocalDay } from '../../cloud/src/lockers/locker-time.js';
import { isNonWorkingDay, type LockerCalendar } from '../../cloud/src/lockers/working-days.js';

const hours = { start: '09:00', end: '21:00' };
const weekdaysOnly = { id: 1, name: 'Mon-Fri', active: true, monday: hours, tuesday: hours, wednesday: hours, thursday: hours, friday: hours };
const calendar = (over: Partial<LockerCalendar> = {}): LockerCalendar => ({
  timezone: 'Europe/Moscow',
  workTimeProfile: weekdaysOnly,
  specialDays: { holidays: [], days: [], daysOfExclusion: [] },
  ...over,
});
const at = (iso: string): number => Date.parse(iso);

describe('locker time', () => {
  it('reads dates, day ends and offsets in the locker time zone', () => {
    const instant = at('2030-03-04T22:30:00Z');
    expect(localDate(instant, 'Europe/Moscow')).toBe('2030-03-05');
    expect(localDate(instant, 'America/New_York')).toBe('2030-03-04');
    expect(endOfLocalDay('2030-03-04', 'Asia/Yekaterinburg')).toBe(at('2030-03-04T18:59:59.999Z'));
    expect(startOfLocalDay('2030-03-04', 'Europe/Moscow')).toBe(at('2030-03-03T21:00:00Z'));
    expect(isoWithOffset(at('2030-03-04T09:00:00.456Z'), 'Europe/Moscow')).toBe('2030-03-04T12:00:00+03:00');
    expect(addDays('2030-02-28', 1)).toBe('2030-03-01');
    // A day with a DST change still ends at local midnight.
    expect(endOfLocalDay('2030-03-31', 'Europe/Berlin')).toBe(at('2030-03-31T21:59:59.999Z'));
  });
});

describe('non-working days', () => {
  it('follows the weekly profile', () => {
    expect(isNonWorkingDay('2030-03-04', calendar())).toBe(false); // Monday
    expect(isNonWorkingDay('2030-03-09', calendar())).toBe(true); // Saturday, no hours
    expect(isNonWorkingDay('2030-03-09', calendar({ workTimeProfile: { id: 2, name: 'all', active: true, everyDay: hours } }))).toBe(false);
    expect(isNonWorkingDay('2030-03-09', calendar({ workTimeProfile: null }))).toBe(false);
    expect(isNonWorkingDay('2030-03-09', calendar({ workTimeProfile: { ...weekdaysOnly, active: false } }))).toBe(false);
  });

  it('applies exclusions, then special days, then holidays', () => {
    const specialDays = {
      holidays: [{ day: '2030-03-08', type: 1 }, { day: '2030-03-11', type: 1 }],
      days: [{ date: '2030-03-09', nonWorking: false }, { date: '2030-03-11', nonWorking: false }, { date: '2030-03-12', nonWorking: true }],
      daysOfExclusion: [{ date: '2030-03-13' }, { date: '2030-03-09' }],
    };
    const cal = calendar({ specialDays });
    expect(isNonWorkingDay('2030-03-08', cal)).toBe(true); // holiday
    expect(isNonWorkingDay('2030-03-08', calendar({ specialDays, workTimeProfile: { ...weekdaysOnly, holiday: hours } }))).toBe(false);
    expect(isNonWorkingDay('2030-03-11', cal)).toBe(false); // a holiday made a working day
    expect(isNonWorkingDay('2030-03-12', cal)).toBe(true); // special day off
    expect(isNonWorkingDay('2030-03-13', cal)).toBe(true); // excluded
    expect(isNonWorkingDay('2030-03-09', cal)).toBe(true); // exclusion wins over a special working day
  });
});

describe('storage deadline', () => {
  it('is load time plus the storage period on a working day', () => {
    expect(storageDeadline(at('2030-03-04T09:00:00Z'), 72, calendar())).toBe(at('2030-03-07T09:00:00Z'));
  });

  it('moves a deadline on non-working days by as many days, keeping the local time', () => {
    // Thursday + 72 h = Sunday (closed) -> Monday.
    expect(storageDeadline(at('2030-03-07T15:00:00Z'), 72, calendar())).toBe(at('2030-03-11T15:00:00Z'));
    // Ends Saturday: Saturday and Sunday are pushed past -> Monday.
    expect(storageDeadline(at('2030-03-06T10:00:00Z'), 72, calendar())).toBe(at('2030-03-11T10:00:00Z'));
    // A holiday Monday after the weekend pushes one more day.
    const holiday = calendar({ specialDays: { holidays: [{ day: '2030-03-11', type: 1 }], days: [], daysOfExclusion: [] } });
    expect(storageDeadline(at('2030-03-06T10:00:00Z'), 72, holiday)).toBe(at('2030-03-12T10:00:00Z'));
  });

  it('reads the deadline date in the locker time zone', () => {
    // 22:00 UTC Friday is already Saturday in Moscow (closed) but still Friday in London (open).
    const friday = at('2030-03-08T22:00:00Z');
    expect(storageDeadline(friday - 72 * 3_600_000, 72, calendar())).toBe(at('2030-03-10T22:00:00Z'));
    expect(storageDeadline(friday - 72 * 3_600_000, 72, calendar({ timezone: 'Europe/London' }))).toBe(friday);
  });

  it('extends by 72 hours and applies the same rule', () => {
    expect(extendedDeadline(at('2030-03-04T09:00:00Z'), calendar())).toBe(at('2030-03-07T09:00:00Z'));
    expect(extendedDeadline(at('2030-03-06T09:00:00Z'), calendar())).toBe(at('2030-03-11T09:00:00Z'));
  });

  it('stops after a year at a locker that never works', () => {
    const closed = calendar({ specialDays: { holidays: [], days: [], daysOfExclusion: Array.from({ length: 800 }, (_, i) => ({ date: addDays('2030-03-01', i) })) } });
    const end = storageDeadline(at('2030-03-04T09:00:00Z'), 72, closed);
    expect(localDate(end, 'Europe/Moscow')).toBe(addDays('2030-03-07', 366));
  });

  it('always ends on a working day, never before the plain period (property)', () => {
    const start = at('2030-01-01T00:00:00Z');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 365 * 24 * 60 }), fc.integer({ min: 1, max: 400 }), (minutes, period) => {
        const loaded = start + minutes * 60_000;
        const cal = calendar();
        const end = storageDeadline(loaded, period, cal);
        expect(end).toBeGreaterThanOrEqual(loaded + period * 3_600_000);
        expect(isNonWorkingDay(localDate(end, cal.timezone), cal)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
