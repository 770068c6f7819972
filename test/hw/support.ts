/** Small waits the hardware suites share. */
import type { BoardEvent, LockHardware } from '../../agent/src/hw/index.js';

/**
 * Reads a board until it answers: after a dropped link the transport reconnects on its own,
 * and the first reads may fail meanwhile. Gives up after `withinMs`.
 */
export async function readWhenBack(hw: LockHardware, bus: string, board: number, withinMs = 60_000): Promise<Map<number, boolean> | undefined> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    const doors = await hw.readBoard(bus, board).catch(() => undefined);
    if (doors) return doors;
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

/** The next 'board' event that satisfies `predicate`. */
export function nextBoardEvent(hw: LockHardware, predicate: (e: BoardEvent) => boolean): Promise<BoardEvent> {
  return new Promise((resolve) => {
    const l = (e: BoardEvent): void => {
      if (predicate(e)) {
        hw.off('board', l);
        resolve(e);
      }
    };
    hw.on('board', l);
  });
}
