import { BoardFamily } from '../families.js';
import type { BoardDriver } from '../driver.js';
import { encodeStatusRequest, encodeUnlockRequest, parseCu48Frame, type Cu48Frame } from './codec.js';

/** Polls each board by its own address (broadcast replies would collide on the half-duplex line). */
export const kerongCu48Driver: BoardDriver<Cu48Frame> = {
  family: BoardFamily.KerongCu48,
  parseFrame: parseCu48Frame,
  async readStatus(link, board, locks) {
    const hooks = await link.request({
      board,
      bytes: encodeStatusRequest(board),
      label: 'status',
      accept: (f) => (f.type === 'status-reply' && f.address === board ? f.hooks : undefined),
    });
    return { hooks: hooks.slice(0, locks) };
  },
  async unlock(link, board, lock) {
    // The CU48 does not answer an unlock: the caller confirms with a status read.
    await link.send({ board, bytes: encodeUnlockRequest(board, lock), label: `unlock ${lock}` });
  },
};
