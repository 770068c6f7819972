/**
 * The sandbox's courier companies: one partner per sandbox marketplace, which the cloud adds
 * itself whenever the fleet has sandbox lockers, serving that marketplace alone at every sandbox
 * locker. One per marketplace keeps the sandbox's couriers apart: the courier that collects one
 * marketplace's returns opens no cell of another's. They have no API key: only the sandbox's
 * courier operations make route sheets for them. Their ids cannot be a fleet file's partner id
 * (those start with a letter or a digit), so they never collide with one.
 */
import type { PartnerFields } from '../repositories/accounts.js';
import type { Fleet } from '../fleet/fleet-schema.js';

const PREFIX = '~sandbox:';

/** The id of the sandbox courier company serving this sandbox marketplace. */
export function sandboxPartnerId(marketplaceId: string): string {
  return `${PREFIX}${marketplaceId}`;
}

/** The sandbox partners for this fleet, by id; none when it has no sandbox locker. */
export function sandboxPartners(fleet: Fleet): Map<string, PartnerFields> {
  const lockerIds = fleet.lockers.filter((l) => l.sandbox).map((l) => l.id);
  if (lockerIds.length === 0) return new Map();
  return new Map(
    fleet.marketplaces
      .filter((m) => m.sandbox)
      .map((m) => [sandboxPartnerId(m.id), { name: `Sandbox courier of ${m.id}`, active: true, rateLimits: null, marketplaceIds: [m.id], lockerIds }]),
  );
}
