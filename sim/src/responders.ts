/**
 * How each board family answers the controller, byte for byte. A responder reads request frames
 * with the codec the agent uses (@parcel-locker/hw-protocol) and hands each board's reply to the
 * bus, which applies the faults.
 */
import { FrameDecoder, type BoardFamily, type DecodeEvent, type FrameParser } from '@parcel-locker/hw-protocol';
import * as generic24 from '@parcel-locker/hw-protocol/generic-24';
import * as cu16 from '@parcel-locker/hw-protocol/kerong-cu16';
import * as cu48 from '@parcel-locker/hw-protocol/kerong-cu48';
import * as winnsen from '@parcel-locker/hw-protocol/winnsen';
import type { SimBoard } from './lock-board.js';

/** The board families the simulator plays: every family the protocol package speaks. */
export type SimFamily = BoardFamily;

export interface FamilyShape {
  locks: number;
  minAddress: number;
  maxAddress: number;
}

export const FAMILY_SHAPES: Record<SimFamily, FamilyShape> = {
  'kerong-cu48': { locks: cu48.LOCKS, minAddress: 0, maxAddress: 9 },
  'kerong-cu16': { locks: cu16.LOCKS, minAddress: 0, maxAddress: 14 },
  winnsen: { locks: 24, minAddress: 0, maxAddress: 255 },
  'generic-24': { locks: generic24.LOCKS, minAddress: 0, maxAddress: 255 },
};

export interface ResponderContext {
  /** The boards a frame reaches (all of them for a broadcast address), counting the request. */
  targets(address: number, broadcast?: number): SimBoard[];
  reply(board: SimBoard, bytes: Buffer): void;
}

/** Requests with a bad checksum or noise are ignored, as a board ignores them. */
function framesOf<F>(events: DecodeEvent<F>[]): F[] {
  return events.flatMap((e) => (e.type === 'frame' ? [e.frame] : []));
}

function responder<F>(parse: FrameParser<F>, handle: (frame: F) => void): (chunk: Buffer) => void {
  const decoder = new FrameDecoder(parse);
  return (chunk) => framesOf(decoder.push(chunk)).forEach(handle);
}

const pulseAll = (b: SimBoard): void => b.locks.forEach((_, i) => b.pulse(i + 1));

export function createResponder(family: SimFamily, ctx: ResponderContext): (chunk: Buffer) => void {
  switch (family) {
    case 'kerong-cu48':
      return responder(cu48.parseCu48Frame, (f) => {
        if (f.type === 'status-request') {
          for (const b of ctx.targets(f.address, cu48.BROADCAST_ADDRESS)) ctx.reply(b, cu48.encodeStatusReply(b.address, b.hookBits()));
        } else if (f.type === 'unlock-request') {
          // No reply: the controller reads the status to see the door open.
          for (const b of ctx.targets(f.address, cu48.BROADCAST_ADDRESS)) {
            if (f.lock === 'all') pulseAll(b);
            else if (f.lock <= b.locks.length) b.pulse(f.lock);
          }
        }
      });
    case 'kerong-cu16':
      return responder(cu16.parseCu16Frame, (f) => {
        if (f.type !== 'request') return;
        const all = f.address === cu16.BROADCAST_ADDRESS;
        for (const b of all ? ctx.targets(f.address, cu16.BROADCAST_ADDRESS) : ctx.targets(cu16.boardOf(f.address))) {
          if (f.command === 'unlock' && !all) b.pulse(cu16.lockOf(f.address));
          if (f.command === 'unlock-all') pulseAll(b);
          ctx.reply(b, cu16.encodeStatusReply(all ? b.address << 4 : f.address, b.hookBits(), b.items()));
        }
      });
    case 'winnsen':
      return responder(winnsen.parseWinnsenFrame, (f) => {
        if (f.type !== 'status-request' && f.type !== 'unlock-request') return;
        for (const b of ctx.targets(f.station)) {
          if (f.lock < 1 || f.lock > b.locks.length) continue;
          if (f.type === 'unlock-request') {
            b.pulse(f.lock);
            ctx.reply(b, winnsen.encodeReply('unlock', f.station, f.lock, !b.lock(f.lock).jammed));
          } else {
            ctx.reply(b, winnsen.encodeReply('status', f.station, f.lock, !b.hookBits()[f.lock - 1]));
          }
        }
      });
    case 'generic-24':
      return responder(generic24.parseGeneric24Frame, (f) => {
        if (f.type === 'query') {
          // Only the query of all locks is simulated; it is the one the driver sends.
          if (f.lock !== 0) return;
          for (const b of ctx.targets(f.board)) ctx.reply(b, generic24.encodeStatusReply(b.address, b.hookBits()));
        } else if (f.type === 'unlock' && f.state === generic24.FUNC_UNLOCK) {
          for (const b of ctx.targets(f.board)) {
            if (f.lock === 0) pulseAll(b);
            else if (f.lock <= b.locks.length) b.pulse(f.lock);
            const opened = f.lock === 0 || !b.lock(f.lock).jammed;
            ctx.reply(b, generic24.encodeUnlock(b.address, f.lock, opened ? 0x00 : generic24.FUNC_UNLOCK));
          }
        }
      });
  }
}
