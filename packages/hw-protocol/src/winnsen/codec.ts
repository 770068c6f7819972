/**
 * Winnsen lock boards, 9600 8N1, no checksum. Request `90 06 FUNC STATION LOCK 03`, reply
 * `90 07 FUNC STATION LOCK STATUS 03`. FUNC 0x05 unlock (reply 0x85, 01 done / 00 failed),
 * 0x12 status of one lock (reply 0x92, 01 open / 00 closed). With no checksum, a frame is
 * accepted only when its header, length, function and end byte all fit.
 */
import type { ParseResult } from '../frame-decoder.js';

export const HEADER = 0x90;
export const ETX = 0x03;
export const FUNC_UNLOCK = 0x05;
export const FUNC_STATUS = 0x12;
export const REPLY_UNLOCK = 0x85;
export const REPLY_STATUS = 0x92;
const REQUEST_LENGTH = 6;
const REPLY_LENGTH = 7;

export type WinnsenFrame =
  | { type: 'unlock-request'; station: number; lock: number }
  | { type: 'status-request'; station: number; lock: number }
  | { type: 'unlock-reply'; station: number; lock: number; done: boolean }
  | { type: 'status-reply'; station: number; lock: number; open: boolean };

export function encodeRequest(kind: 'unlock' | 'status', station: number, lock: number): Buffer {
  return Buffer.from([HEADER, REQUEST_LENGTH, kind === 'unlock' ? FUNC_UNLOCK : FUNC_STATUS, station, lock, ETX]);
}

export function encodeReply(kind: 'unlock' | 'status', station: number, lock: number, flag: boolean): Buffer {
  return Buffer.from([HEADER, REPLY_LENGTH, kind === 'unlock' ? REPLY_UNLOCK : REPLY_STATUS, station, lock, flag ? 0x01 : 0x00, ETX]);
}

export function parseWinnsenFrame(buf: Buffer): ParseResult<WinnsenFrame> {
  if (buf[0] !== HEADER) return { kind: 'skip' };
  if (buf.length < 3) return { kind: 'more' };
  const length = buf[1];
  const func = buf[2];
  const fits =
    (length === REQUEST_LENGTH && (func === FUNC_UNLOCK || func === FUNC_STATUS)) ||
    (length === REPLY_LENGTH && (func === REPLY_UNLOCK || func === REPLY_STATUS));
  if (!fits) return { kind: 'skip' };
  if (buf.length < length) return { kind: 'more' };
  if (buf[length - 1] !== ETX) return { kind: 'skip' };
  const station = buf[3] ?? 0;
  const lock = buf[4] ?? 0;
  if (length === REQUEST_LENGTH) {
    return { kind: 'frame', length, frame: { type: func === FUNC_UNLOCK ? 'unlock-request' : 'status-request', station, lock } };
  }
  const status = buf[5];
  if (status !== 0x00 && status !== 0x01) return { kind: 'skip' };
  const flag = status === 0x01;
  return {
    kind: 'frame',
    length,
    frame: func === REPLY_UNLOCK ? { type: 'unlock-reply', station, lock, done: flag } : { type: 'status-reply', station, lock, open: flag },
  };
}
