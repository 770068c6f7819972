/**
 * postamat/capacity, postamat/available and postamat/get-by-id. All counts come from the same
 * locker view as reservation (occupancy.ts), seen by the calling marketplace.
 */
import { boxFitsCell } from '../../../shared/src/geometry.js';
import { sizeParcel } from '../allocation/allocate.js';
import type { z } from 'zod';
import type { CapacityRequest, capacityManyOut, capacityOut, lockerDetailOut, lockerListItemOut } from '../contract/lockers.js';
import { invalidRequest } from '../errors.js';
import { activeLockers, type Cell, findLocker, type Locker } from '../repositories/lockers.js';
import { seesLocker } from '../sandbox/isolation.js';
import type { ServiceDeps } from '../services.js';
import { isFlagged } from './cells.js';
import { addDays, localDate } from './locker-time.js';
import { freeCells, freeCellsOn, loadLockerView, marketplaceCells, type LockerView } from './occupancy.js';
import { presentWorkTimeProfile } from './present.js';

/** Capacity counts are int8 in the spec. */
const INT8_MAX = 127;
const int8 = (n: number): number => Math.min(n, INT8_MAX);

/** The calling marketplace: its id and whether it is a sandbox one. */
type Caller = { id: string; sandbox: boolean };

function distinctSizes(cells: readonly Cell[]): { id: number; width: number; height: number }[] {
  const sizes = new Map<string, { width: number; height: number }>();
  for (const c of cells) sizes.set(`${c.width}x${c.height}`, { width: c.width, height: c.height });
  return [...sizes.values()]
    .sort((a, b) => a.width * a.height - b.width * b.height || a.width - b.width)
    .map((s, i) => ({ id: i + 1, ...s }));
}

/** Informational reads need no lock: a reservation re-reads the view inside its transaction. */
function lockerView(deps: ServiceDeps, locker: Locker): Promise<LockerView> {
  return loadLockerView(deps.cdb.db, locker);
}

async function knownLocker(deps: ServiceDeps, marketplace: Caller, lockerId: number): Promise<Locker> {
  const locker = await findLocker(deps.cdb.db, lockerId);
  if (!locker || !seesLocker(marketplace, locker)) throw invalidRequest({ ru: `postamatId ${lockerId} не найден`, en: `postamatId ${lockerId} not found` });
  return locker;
}

/** The capacity answer of one locker, or (extension `postamatIds`) of several, keyed by id. */
export async function capacity(
  deps: ServiceDeps,
  marketplace: Caller,
  req: CapacityRequest,
): Promise<z.infer<typeof capacityOut> | z.infer<typeof capacityManyOut>> {
  if (req.postamatIds === undefined) return lockerCapacity(deps, marketplace, await knownLocker(deps, marketplace, req.postamatId!), req);
  const ids = [...new Set(req.postamatIds)];
  const lockers = await Promise.all(ids.map((id) => knownLocker(deps, marketplace, id)));
  const postamats: Record<string, z.infer<typeof capacityOut>> = {};
  for (const locker of lockers) postamats[String(locker.id)] = await lockerCapacity(deps, marketplace, locker, req);
  return { postamats };
}

async function lockerCapacity(deps: ServiceDeps, marketplace: Caller, locker: Locker, req: CapacityRequest): Promise<z.infer<typeof capacityOut>> {
  const view = await lockerView(deps, locker);
  const box = sizeParcel(req.parcelSize, deps.config.allocation).box;
  const totalCapacity = int8(marketplaceCells(view, marketplace.id).length);
  const answer: z.infer<typeof capacityOut> = {};
  for (let i = 0; i < deps.config.capacityDays; i++) {
    const date = addDays(req.deliveryDate, i);
    const fitting = freeCellsOn(view, marketplace.id, date).filter((c) => boxFitsCell(box, { width: c.width, height: c.height, depth: locker.depth }));
    answer[date] = { total: int8(fitting.length), totalCapacity, isBroken: locker.broken };
  }
  return answer;
}

export interface LockerListFilter {
  scanner?: boolean | undefined;
  schedule?: boolean | undefined;
}

export async function availableLockers(
  deps: ServiceDeps,
  marketplace: Caller,
  filter: LockerListFilter,
): Promise<z.infer<typeof lockerListItemOut>[]> {
  const lockers = await activeLockers(deps.cdb.db, { scanner: filter.scanner, sandbox: marketplace.sandbox });
  const now = deps.clock.now();
  const out: z.infer<typeof lockerListItemOut>[] = [];
  for (const locker of lockers) {
    const view = await lockerView(deps, locker);
    const usable = marketplaceCells(view, marketplace.id);
    if (usable.length === 0) continue;
    const { profile } = locker;
    const today = localDate(now, locker.timezone);
    const dayOffs: { day: string; reason: 'full' | 'broken' }[] = [];
    for (let i = 0; i < deps.config.dayOffsDays; i++) {
      const day = addDays(today, i);
      if (locker.broken) dayOffs.push({ day, reason: 'broken' });
      else if (freeCellsOn(view, marketplace.id, day).length === 0) dayOffs.push({ day, reason: 'full' });
    }
    const workTimeProfile = filter.schedule ? presentWorkTimeProfile(locker, profile) : undefined;
    out.push({
      id: locker.id,
      name: locker.name,
      workTime: profile.workTime,
      ...(workTimeProfile ? { workTimeProfile } : {}),
      ...(filter.schedule ? { specialDays: profile.specialDays } : {}),
      find: profile.find,
      photos: profile.photos,
      location: profile.location,
      cellSizes: distinctSizes(usable),
      machineEquipment: { barcodeScannerEquip: profile.equipment.barcodeScanner },
      dayOffs,
      mos_regestry_id: profile.mosRegistryId,
    });
  }
  return out;
}

export async function lockerDetail(
  deps: ServiceDeps,
  marketplace: Caller,
  lockerId: number,
  cellsType: 0 | 1,
): Promise<z.infer<typeof lockerDetailOut>> {
  const locker = await knownLocker(deps, marketplace, lockerId);
  const view = await lockerView(deps, locker);
  const { profile } = locker;
  const usable = marketplaceCells(view, marketplace.id);
  const free = new Set(freeCells(view, marketplace.id).map((c) => c.id));
  const cells = usable
    .filter((c) => cellsType === 0 || free.has(c.id))
    .map((c) => ({ cellId: c.id, size: { width: c.width, height: c.height }, free: free.has(c.id) }));
  const segmented = view.cells.some((c) => c.segment?.includes(marketplace.id));
  const workTimeProfile = presentWorkTimeProfile(locker, profile);
  return {
    id: locker.id,
    name: locker.name,
    workTime: profile.workTime,
    workSchedule: { ...(workTimeProfile ? { workTimeProfile } : {}), specialDays: profile.specialDays },
    find: profile.find,
    photos: profile.photos,
    location: profile.location,
    cellSizes: distinctSizes(usable),
    machineEquipment: {
      barcodeScannerEquip: profile.equipment.barcodeScanner,
      heatedCells: profile.equipment.heatedCells,
      cooledCells: profile.equipment.cooledCells,
    },
    mos_regestry_id: profile.mosRegistryId,
    active: locker.active,
    depth: locker.depth,
    cells,
    ...(segmented
      ? { availableCells: usable.filter((c) => !isFlagged(c)).map((c) => ({ cellId: c.id, size: { width: c.width, height: c.height } })) }
      : {}),
  };
}
