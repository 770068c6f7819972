/**
 * What the operator console shows of the fleet: the overview, the locker list (a page at a time,
 * from two queries whatever the fleet's size) and one locker with its cells laid out as the
 * front looks.
 *
 * Cell states, first that applies: blocked (flag), needs_inspection (faulty, dirty or
 * needs_inventory), awaiting_return, occupied (a parcel loaded), reserved (a parcel pending),
 * free. Position: the fleet file gives each cell a bus, a board and a lock, not a place on the
 * front; a board drives one column of doors, top to bottom by lock number. So `column` is the
 * board's place among the locker's boards (by bus name, then address, from 1) and `row` the
 * cell's place among its board's locks (by lock number, from 1).
 */
import { CELL_FLAGS, CellFlag, OrderState, ParcelState } from '../../../shared/src/enums.js';
import { invalidRequest } from '../errors.js';
import { type Location, parseProfile } from '../lockers/profile.js';
import { latestDoorFacts, openAlertsBySeverity } from '../repositories/alerts.js';
import { flagMarksOf } from '../repositories/cell-flag-marks.js';
import { cellsOf, type Cell, findLocker } from '../repositories/lockers.js';
import { cellHolders, type CellHolder } from '../repositories/occupancy.js';
import { flagMarksOfCells } from '../repositories/cell-flag-marks.js';
import { cellStatesOf, type CellFill, fillOf, flaggedCellsPage, fleetCounts, fleetFill, lockerListPage, mapLockers, type CellState } from '../repositories/operator-views.js';
import { storageEndingToday } from './order-views.js';
import { healthReportOf } from '../repositories/locker-health.js';
import type { ServiceDeps } from '../services.js';
import { onlineCause } from './online-cause.js';

export const CELL_STATES = ['free', 'reserved', 'occupied', 'awaiting_return', 'blocked', 'needs_inspection'] as const;
export type CellStateName = (typeof CELL_STATES)[number];

const INSPECTION_FLAGS: readonly CellFlag[] = [CellFlag.Faulty, CellFlag.Dirty, CellFlag.NeedsInventory];

/**
 * The network's figures (real lockers and marketplaces only) and, apart, the sandbox's: sandbox
 * lockers and their alerts and notifications never count in the network's (sandbox/isolation.ts).
 */
export async function overview(deps: ServiceDeps) {
  const network = await figures(deps, false);
  const ending = await storageEndingToday(deps, 1, 1);
  return { ...network, storageEndingToday: ending.total, sandbox: await figures(deps, true) };
}

/** Occupied of usable cells, with the percentage (whole, rounded; null when no cell is usable). */
export function fillRate(fill: CellFill | undefined) {
  const { usable, occupied } = fill ?? { usable: 0, occupied: 0 };
  return { occupied, usable, percent: usable === 0 ? null : Math.round((occupied * 100) / usable) };
}

async function figures(deps: ServiceDeps, sandbox: boolean) {
  const now = deps.clock.now();
  const counts = await fleetCounts(deps.cdb.db, sandbox);
  const alerts = await openAlertsBySeverity(deps.cdb.db, sandbox);
  const fill = await fleetFill(deps.cdb.db, sandbox);
  return {
    lockers: { total: counts.lockers, online: counts.online, offline: counts.lockers - counts.online },
    openAlerts: alerts,
    cells: { needsInspection: counts.cellsNeedingInspection, blocked: counts.cellsBlocked },
    fill: fillRate(fill),
    notifications: {
      undelivered: counts.notificationsUndelivered,
      oldestUndeliveredAgeSeconds: counts.oldestUndeliveredAt === null ? null : Math.max(0, Math.floor((now - counts.oldestUndeliveredAt) / 1000)),
    },
  };
}

/** `<width>x<height>` (mm): how the console names a cell size. */
export function sizeName(cell: { width: number; height: number }): string {
  return `${cell.width}x${cell.height}`;
}

function addressOf(location: Location): string {
  return location.fullAddress || [location.street, location.house].filter(Boolean).join(', ');
}

/** Free cells per size of each locker: not flagged, held by no parcel, the locker taking orders. */
function freeBySize(cells: readonly CellState[], usable: ReadonlySet<number>): Map<number, Record<string, number>> {
  const out = new Map<number, Record<string, number>>();
  for (const c of cells) {
    const sizes = out.get(c.lockerId) ?? {};
    const name = sizeName(c);
    sizes[name] = (sizes[name] ?? 0) + (usable.has(c.lockerId) && c.flags.length === 0 && !c.held ? 1 : 0);
    out.set(c.lockerId, sizes);
  }
  return out;
}

export interface LockerListRequest {
  lockerId?: number | undefined;
  query?: string | undefined;
  status?: 'online' | 'offline' | undefined;
  alarms?: 'open' | undefined;
  page: number;
  pageSize: number;
}

export async function lockerList(deps: ServiceDeps, req: LockerListRequest) {
  const { rows, total } = await lockerListPage(deps.cdb.db, {
    lockerId: req.lockerId,
    query: req.query,
    online: req.status === undefined ? undefined : req.status === 'online',
    openAlerts: req.alarms === 'open',
    offset: (req.page - 1) * req.pageSize,
    limit: req.pageSize,
  });
  const cells = await cellStatesOf(deps.cdb.db, rows.map((r) => r.id));
  const free = freeBySize(cells, new Set(rows.filter((r) => r.active && !r.broken).map((r) => r.id)));
  const fills = await fillOf(deps.cdb.db, rows.filter((r) => r.active).map((r) => r.id));
  const items = rows.map((r) => {
    const { location } = parseProfile(r.profile);
    return {
      lockerId: r.id,
      name: r.name,
      city: location.city,
      address: addressOf(location),
      latitude: location.latitude,
      longitude: location.longitude,
      active: r.active,
      broken: r.broken,
      online: r.online,
      since: r.presenceChangedAt,
      lastSeenAt: r.lastSeenAt,
      freeToday: free.get(r.id) ?? {},
      fill: fillRate(fills.get(r.id)),
      openAlerts: r.openAlerts,
      lastEventAt: r.lastEventAt,
      agentVersion: r.agentVersion,
    };
  });
  return { items, total, page: req.page, pageSize: req.pageSize };
}

/** Every active locker for the map (at most `limit`, by id): where it stands, its state and fill; sandbox ones marked. */
export async function fleetMap(deps: ServiceDeps, limit: number) {
  const { rows, total } = await mapLockers(deps.cdb.db, limit);
  const fills = await fillOf(deps.cdb.db, 'all');
  const items = rows.map((r) => {
    const { location } = parseProfile(r.profile);
    return {
      lockerId: r.id,
      name: r.name,
      address: addressOf(location),
      latitude: location.latitude,
      longitude: location.longitude,
      sandbox: r.sandbox,
      online: r.online,
      openAlerts: r.openAlerts,
      fill: fillRate(fills.get(r.id)),
    };
  });
  return { items, total };
}

/** What the flagged-cells list can ask for: one flag, or needs_inspection (faulty, dirty or needs_inventory, as the overview counts). */
export const CELL_FLAG_FILTERS = [...CELL_FLAGS, 'needs_inspection'] as const;
export type CellFlagFilter = (typeof CELL_FLAG_FILTERS)[number];

/** Cells of active lockers having the flag, by locker then cell, each with who set its flags, why and when. */
export async function flaggedCells(deps: ServiceDeps, req: { flag: CellFlagFilter; sandbox: boolean; page: number; pageSize: number }) {
  const db = deps.cdb.db;
  const flags = req.flag === 'needs_inspection' ? INSPECTION_FLAGS : [req.flag];
  const { rows, total } = await flaggedCellsPage(db, { flags, sandbox: req.sandbox, offset: (req.page - 1) * req.pageSize, limit: req.pageSize });
  const marks = await flagMarksOfCells(db, rows);
  const items = rows.map((r) => ({
    lockerId: r.lockerId,
    lockerName: r.lockerName,
    cellId: r.cellId,
    size: sizeName(r),
    flags: r.flags,
    // As on the locker's grid: a flag without a mark (set by the fleet file, or before marks were kept) is left out.
    flagMarks: marks
      .filter((m) => m.lockerId === r.lockerId && m.cellId === r.cellId && (r.flags as readonly string[]).includes(m.flag))
      .map((m) => ({ flag: m.flag as CellFlag, setBy: m.by, reason: m.reason, note: m.note, setAt: new Date(m.at).toISOString() })),
  }));
  return { items, total, page: req.page, pageSize: req.pageSize };
}

function stateOf(cell: Cell, holders: readonly CellHolder[]): CellStateName {
  if (cell.flags.includes(CellFlag.Blocked)) return 'blocked';
  if (cell.flags.some((f) => INSPECTION_FLAGS.includes(f))) return 'needs_inspection';
  const awaiting = (h: CellHolder) =>
    h.parcelState === ParcelState.AwaitingReturn || h.orderState === OrderState.ReturnInitiated || h.orderState === OrderState.AwaitingReturn;
  if (holders.some(awaiting)) return 'awaiting_return';
  if (holders.some((h) => h.parcelState === ParcelState.Loaded)) return 'occupied';
  if (holders.some((h) => h.parcelState === ParcelState.Pending)) return 'reserved';
  return 'free';
}

/** Door open from the latest door fact: closed -> false, left open or opened unexpectedly -> true, else unknown. */
function doorOpenOf(kind: string | undefined): boolean | null {
  if (kind === 'closed') return false;
  if (kind === 'left_open' || kind === 'opened_unexpectedly') return true;
  return null;
}

/** Column per board (by bus, then board address), row per lock within the board: see the module's comment. */
export function frontPositions(cells: readonly Pick<Cell, 'id' | 'bus' | 'board' | 'lock'>[]): Map<number, { column: number; row: number }> {
  const boards = [...new Set(cells.map((c) => `${c.bus}\u0000${String(c.board).padStart(3, '0')}`))].sort();
  const out = new Map<number, { column: number; row: number }>();
  for (const [i, board] of boards.entries()) {
    const own = cells.filter((c) => `${c.bus}\u0000${String(c.board).padStart(3, '0')}` === board).sort((a, b) => a.lock - b.lock);
    own.forEach((c, j) => out.set(c.id, { column: i + 1, row: j + 1 }));
  }
  return out;
}

export async function lockerWithGrid(deps: ServiceDeps, lockerId: number) {
  const db = deps.cdb.db;
  const locker = await findLocker(db, lockerId);
  if (!locker) throw invalidRequest({ ru: `постамат ${lockerId} не найден`, en: `locker ${lockerId} not found` });
  const [list, cells, holders, doors, marks] = [
    await lockerList(deps, { lockerId, page: 1, pageSize: 1 }),
    await cellsOf(db, lockerId),
    await cellHolders(db, lockerId),
    await latestDoorFacts(db, lockerId),
    await flagMarksOf(db, lockerId),
  ];
  const row = list.items.find((i) => i.lockerId === lockerId)!;
  const positions = frontPositions(cells);
  const grid = cells.map((c) => {
    const own = holders.filter((h) => h.cellId === c.id);
    return {
      cellId: c.id,
      ...positions.get(c.id)!,
      size: sizeName(c),
      width: c.width,
      height: c.height,
      depth: locker.depth,
      state: stateOf(c, own),
      doorOpen: doorOpenOf(doors.get(c.id)),
      flags: c.flags,
      // Who set each current flag, why and when; a flag without a mark (set by the fleet file, or before marks were kept) is left out.
      flagMarks: marks
        .filter((m) => m.cellId === c.id && (c.flags as readonly string[]).includes(m.flag))
        .map((m) => ({ flag: m.flag as CellFlag, setBy: m.by, reason: m.reason, note: m.note, setAt: new Date(m.at).toISOString() })),
      orders: [...new Map(own.map((h) => [h.orderId, { orderId: h.orderId, externalId: h.externalId, marketplaceId: h.marketplaceId }])).values()],
    };
  });
  const health = await healthReportOf(db, lockerId);
  const agentStartedAt = health ? Math.max(0, health.report.at - Math.round(health.report.uptimeSeconds * 1000)) : null;
  const link = { cloudStartedAt: deps.startedAt, agentStartedAt };
  return { ...row, ...link, onlineCause: onlineCause({ online: row.online, since: row.since, ...link }), timezone: locker.timezone, depth: locker.depth, grid };
}
