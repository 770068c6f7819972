import { BoardFamily } from '../families.js';
import type { BoardDriver } from '../driver.js';
import { encodeRequest, parseWinnsenFrame, type WinnsenFrame } from './codec.js';

/** Winnsen boards report one lock per status request, so a board read is one exchange per lock. */
export const winnsenDriver: BoardDriver<WinnsenFrame> = {
  family: BoardFamily.Winnsen,
  parseFrame: parseWinnsenFrame,
  async readStatus(link, board, locks) {
    const hooks: boolean[] = [];
    for (let lock = 1; lock <= locks; lock++) {
      const open = await link.request({
        board,
        bytes: encodeRequest('status', board, lock),
        label: `status ${lock}`,
        accept: (f) => (f.type === 'status-reply' && f.station === board && f.lock === lock ? f.open : undefined),
      });
      // A closed lock is what normal-polarity boards of other families report as a set bit.
      hooks.push(!open);
    }
    return { hooks };
  },
  async unlock(link, board, lock) {
    await link.requestOptional({
      board,
      bytes: encodeRequest('unlock', board, lock),
      label: `unlock ${lock}`,
      accept: (f) => (f.type === 'unlock-reply' && f.station === board && f.lock === lock ? f : undefined),
    });
  },
};
