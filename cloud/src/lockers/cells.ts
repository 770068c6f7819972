/** What a cell's flags and segment mean, and the locker layout the agent receives. */
import type { LockerConfig } from '../../../shared/src/protocol.js';
import { BOARD_FAMILIES, type BoardFamily } from '../../../shared/src/enums.js';
import type { Cell, Locker } from '../repositories/lockers.js';

export function isFlagged(cell: Pick<Cell, 'flags'>): boolean {
  return cell.flags.length > 0;
}

export function cellServesMarketplace(cell: Pick<Cell, 'segment'>, marketplaceId: string): boolean {
  return cell.segment === null || cell.segment.includes(marketplaceId);
}

function isBoardFamily(value: string | undefined): value is BoardFamily {
  return (BOARD_FAMILIES as readonly string[]).includes(value ?? '');
}

/** The layout the agent works with (`locker.config` command and snapshots). */
export function lockerConfig(locker: Locker, cells: readonly Cell[]): LockerConfig {
  return {
    lockerId: String(locker.id),
    timezone: locker.timezone,
    depth: locker.depth,
    cells: [...cells]
      .sort((a, b) => a.id - b.id)
      .map((c) => ({ id: c.id, width: c.width, height: c.height, bus: c.bus, board: c.board, lock: c.lock, flags: [...c.flags] })),
    ...(isBoardFamily(locker.profile.boardFamily) ? { boardFamily: locker.profile.boardFamily } : {}),
  };
}
