/** Cell rows <-> the flag list of the protocol, and the locker layout the agent receives. */
import { CellFlag } from '../../../shared/src/enums.js';
import type { LockerConfig } from '../../../shared/src/protocol.js';
import { BOARD_FAMILIES, type BoardFamily } from '../../../shared/src/enums.js';
import type { CellRow, LockerRow } from '../db/schema.js';
import { parseProfile } from './profile.js';

export type CellFlagColumns = Pick<CellRow, 'faulty' | 'dirty' | 'needs_inventory' | 'blocked'>;

export function cellFlags(row: CellFlagColumns): CellFlag[] {
  const flags: CellFlag[] = [];
  if (row.faulty) flags.push(CellFlag.Faulty);
  if (row.dirty) flags.push(CellFlag.Dirty);
  if (row.needs_inventory) flags.push(CellFlag.NeedsInventory);
  if (row.blocked) flags.push(CellFlag.Blocked);
  return flags;
}

export function flagColumns(flags: readonly CellFlag[]): CellFlagColumns {
  const has = (f: CellFlag): number => (flags.includes(f) ? 1 : 0);
  return { faulty: has(CellFlag.Faulty), dirty: has(CellFlag.Dirty), needs_inventory: has(CellFlag.NeedsInventory), blocked: has(CellFlag.Blocked) };
}

export function isFlagged(row: CellFlagColumns): boolean {
  return !!(row.faulty || row.dirty || row.needs_inventory || row.blocked);
}

/** Marketplaces a cell is reserved for; null when every marketplace may use it. */
export function cellSegment(row: Pick<CellRow, 'segment'>): string[] | null {
  return row.segment === null ? null : (JSON.parse(row.segment) as string[]);
}

export function cellServesMarketplace(row: Pick<CellRow, 'segment'>, marketplaceId: string): boolean {
  const segment = cellSegment(row);
  return segment === null || segment.includes(marketplaceId);
}

function isBoardFamily(value: string | undefined): value is BoardFamily {
  return (BOARD_FAMILIES as readonly string[]).includes(value ?? '');
}

/** The layout the agent works with (`locker.config` command and snapshots). */
export function lockerConfig(locker: LockerRow, cells: readonly CellRow[]): LockerConfig {
  const profile = parseProfile(locker.profile);
  return {
    lockerId: String(locker.id),
    timezone: locker.timezone,
    depth: locker.depth,
    cells: [...cells]
      .sort((a, b) => a.id - b.id)
      .map((c) => ({ id: c.id, width: c.width, height: c.height, bus: c.bus, board: c.board, lock: c.lock, flags: cellFlags(c) })),
    ...(isBoardFamily(profile.boardFamily) ? { boardFamily: profile.boardFamily } : {}),
  };
}
