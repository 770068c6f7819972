/** Locker data in the shapes of the API answers. */
import type { z } from 'zod';
import type { Locker } from '../repositories/lockers.js';
import type { workTimeProfileOut } from '../contract/lockers.js';
import { isoWithOffset } from './locker-time.js';
import type { LockerProfile } from './profile.js';

export function presentWorkTimeProfile(locker: Locker, profile: LockerProfile): z.infer<typeof workTimeProfileOut> | undefined {
  const { updatedAt } = locker;
  const p = profile.workTimeProfile;
  if (!p) return undefined;
  const perDay = [p.monday, p.tuesday, p.wednesday, p.thursday, p.friday, p.saturday, p.sunday].some((h) => h !== undefined);
  const { everyDay, ...rest } = p;
  return {
    ...rest,
    lastUpdate: p.lastUpdate ?? isoWithOffset(updatedAt, locker.timezone),
    ...(perDay || !everyDay ? {} : { everyDay }),
  };
}
