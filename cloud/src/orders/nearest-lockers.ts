/**
 * Extension beyond the contract: when an order finds no cells for all its parcels (code 32), the
 * answer lists `nearestLockers`: up to NEAREST_LOCKERS_MAX other active lockers the marketplace may
 * use where the same parcels would fit on the delivery date, nearest first by great-circle
 * distance between the fleet file's coordinates. Only when at least one exists; a client that
 * knows only the contract sees the envelope it always saw.
 */
import { ResultCode } from '../../../shared/src/enums.js';
import type { AllocationOptions } from '../allocation/options.js';
import { allocate } from '../allocation/allocate.js';
import { DomainError } from '../errors.js';
import { freeCellsOn, loadLockerView, marketplaceCells } from '../lockers/occupancy.js';
import { activeLockers, type Locker } from '../repositories/lockers.js';
import type { ServiceDeps } from '../services.js';
import type { ParcelSize } from './reserve.js';

export const NEAREST_LOCKERS_MAX = 5;
/** Lockers looked at, nearest first, before giving up: bounds the work of one refused request. */
const LOCKERS_EXAMINED_MAX = 50;
const EARTH_RADIUS_M = 6_371_000;

export interface NearestLocker {
  postamatId: number;
  name: string;
  fullAddress: string;
  distanceMeters: number;
}

/** Code 32 with what is needed to look for other lockers. */
export class NoCellsError extends DomainError {
  constructor(readonly room: { locker: Locker; date: string; parcels: readonly ParcelSize[] }) {
    super(ResultCode.NoCellsForAllParcels, 'Not cells for all parcels');
  }
}

export function haversineMeters(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const rad = (deg: number) => (deg * Math.PI) / 180;
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

function fitsAll(parcels: readonly ParcelSize[], cells: { id: number; width: number; height: number; accessible: boolean }[], depth: number, options: AllocationOptions): boolean {
  const allocation = allocate({
    parcels: parcels.map((p) => ({
      barcode: p.barcode,
      dimension: { ...(p.length !== null ? { length: p.length } : {}), ...(p.width !== null ? { width: p.width } : {}), ...(p.height !== null ? { height: p.height } : {}) },
      accessible: !!p.accessible,
    })),
    freeCells: cells,
    lockerCells: cells,
    depth,
    options,
  });
  return allocation.temporarilyRejected.length === 0 && allocation.permanentlyRejected.length === 0;
}

export async function nearestLockersWithRoom(deps: ServiceDeps, marketplaceId: string, room: NoCellsError['room']): Promise<NearestLocker[]> {
  const from = room.locker.profile.location;
  const candidates = (await activeLockers(deps.cdb.db))
    .filter((l) => l.id !== room.locker.id && !l.broken)
    .map((l) => ({ locker: l, distance: haversineMeters(from, l.profile.location) }))
    .sort((a, b) => a.distance - b.distance || a.locker.id - b.locker.id)
    .slice(0, LOCKERS_EXAMINED_MAX);
  const found: NearestLocker[] = [];
  for (const { locker, distance } of candidates) {
    const view = await loadLockerView(deps.cdb.db, locker);
    if (marketplaceCells(view, marketplaceId).length === 0) continue;
    if (!fitsAll(room.parcels, freeCellsOn(view, marketplaceId, room.date), locker.depth, deps.config.allocation)) continue;
    found.push({ postamatId: locker.id, name: locker.name, fullAddress: locker.profile.location.fullAddress, distanceMeters: Math.round(distance) });
    if (found.length >= NEAREST_LOCKERS_MAX) break;
  }
  return found;
}

/** The 32 refusal with `nearestLockers` when there are any. */
export async function withNearestLockers(deps: ServiceDeps, marketplaceId: string, err: NoCellsError): Promise<DomainError> {
  const nearestLockers = await nearestLockersWithRoom(deps, marketplaceId, err.room);
  return nearestLockers.length === 0 ? err : new DomainError(err.resultCode, err.message, { ...err.options, extra: { nearestLockers } });
}
