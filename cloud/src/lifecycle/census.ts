/** How many of an order's parcels are in each state: what the order's state follows from. */
import { ParcelState } from '../../../shared/src/enums.js';
import type { ParcelRow } from '../db/schema.js';

export interface Census {
  pending: number;
  loaded: number;
  awaitingReturn: number;
  received: number;
  returned: number;
  cancelled: number;
}

export function census(parcels: readonly Pick<ParcelRow, 'state'>[]): Census {
  const count = (s: ParcelState): number => parcels.filter((p) => p.state === s).length;
  return {
    pending: count(ParcelState.Pending),
    loaded: count(ParcelState.Loaded),
    awaitingReturn: count(ParcelState.AwaitingReturn),
    received: count(ParcelState.Received),
    returned: count(ParcelState.Returned),
    cancelled: count(ParcelState.Cancelled),
  };
}
