import { BoardFamily } from '../families.js';
import type { BoardDriver } from '../driver.js';
import { boardOf, cu16Address, encodeRequest, parseCu16Frame, type Cu16Frame } from './codec.js';

const replyOf = (board: number) => (f: Cu16Frame) => (f.type === 'status-reply' && boardOf(f.address) === board ? f : undefined);

export const kerongCu16Driver: BoardDriver<Cu16Frame> = {
  family: BoardFamily.KerongCu16,
  parseFrame: parseCu16Frame,
  async readStatus(link, board, locks) {
    const reply = await link.request({ board, bytes: encodeRequest('status', cu16Address(board)), label: 'status', accept: replyOf(board) });
    return { hooks: reply.hooks.slice(0, locks), items: reply.items.slice(0, locks) };
  },
  async unlock(link, board, lock) {
    // The board answers an unlock with its status, taken as the pulse starts: it only
    // acknowledges the frame, and is never resent (a resend would pulse twice).
    await link.requestOptional({ board, bytes: encodeRequest('unlock', cu16Address(board, lock)), label: `unlock ${lock}`, accept: replyOf(board) });
  },
};
