import { BoardFamily } from '../families.js';
import type { BoardDriver } from '../driver.js';
import { encodeQuery, encodeUnlock, parseGeneric24Frame, type Generic24Frame } from './codec.js';

export const generic24Driver: BoardDriver<Generic24Frame> = {
  family: BoardFamily.Generic24,
  parseFrame: parseGeneric24Frame,
  async readStatus(link, board, locks) {
    const hooks = await link.request({
      board,
      bytes: encodeQuery(board, 0),
      label: 'status',
      accept: (f) => (f.type === 'status-reply' && f.board === board ? f.hooks : undefined),
    });
    return { hooks: hooks.slice(0, locks) };
  },
  async unlock(link, board, lock) {
    await link.requestOptional({
      board,
      bytes: encodeUnlock(board, lock),
      label: `unlock ${lock}`,
      accept: (f) => (f.type === 'unlock' && f.board === board && f.lock === lock ? f : undefined),
    });
  },
};
