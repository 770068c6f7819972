/** Lock boards going quiet or coming back become `board.state` events, once per change. */
import type { BoardEvent } from '../hw/index.js';
import type { LockerStore } from '../store/index.js';

/**
 * Records a board's state; returns whether it changed. A board never reported before is taken to
 * have been online, so the first report of a healthy board is not an event.
 */
export function recordBoardState(store: LockerStore, e: BoardEvent): boolean {
  return store.tx(() => {
    const known = store.boards.online(e.bus, e.board);
    // Doors are read many times a second: an unchanged board writes nothing.
    if (known === e.online) return false;
    store.boards.set(e.bus, e.board, e.online);
    if ((known ?? true) === e.online) return false;
    store.outbox.emit({ type: 'board.state', bus: e.bus, board: e.board, online: e.online });
    return true;
  });
}
