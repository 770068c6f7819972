/**
 * The sandbox's courier company: a partner the cloud adds itself whenever the fleet has sandbox
 * lockers, serving every sandbox marketplace at every sandbox locker. It has no API key: only the
 * sandbox's courier operation makes route sheets for it. Its id cannot be a fleet file's partner
 * id (those start with a letter or a digit), so it never collides with one.
 */
import type { PartnerFields } from '../repositories/accounts.js';
import type { Fleet } from '../fleet/fleet-schema.js';

export const SANDBOX_PARTNER_ID = '~sandbox';

/** The sandbox partner for this fleet, or null when it has no sandbox locker. */
export function sandboxPartner(fleet: Fleet): PartnerFields | null {
  const lockerIds = fleet.lockers.filter((l) => l.sandbox).map((l) => l.id);
  if (lockerIds.length === 0) return null;
  const marketplaceIds = fleet.marketplaces.filter((m) => m.sandbox).map((m) => m.id);
  return { name: 'Sandbox courier', active: true, rateLimits: null, marketplaceIds, lockerIds };
}
