/**
 * Generic 24-channel lock boards, 9600 8N1, XOR of the bytes before the check byte.
 * Unlock `8A BOARD LOCK 11 XOR` (answered `8A BOARD LOCK STATE XOR`); query `80 BOARD LOCK 33 XOR`.
 * Querying lock 0 (all) is answered `80 BOARD S17-24 S9-16 S1-8 33 XOR`, bit 0 of each byte the
 * lowest lock of its group, a set bit a locked hook. The driver only uses the query of all locks.
 */
import { bitsOf, packBits, xor8 } from '../bytes.js';
import type { ParseResult } from '../frame-decoder.js';

export const HEADER_QUERY = 0x80;
export const HEADER_UNLOCK = 0x8a;
export const FUNC_QUERY = 0x33;
export const FUNC_UNLOCK = 0x11;
export const LOCKS = 24;

export type Generic24Frame =
  | { type: 'query'; board: number; lock: number }
  /** Request (state 0x11) and reply share this layout. */
  | { type: 'unlock'; board: number; lock: number; state: number }
  | { type: 'status-reply'; board: number; hooks: boolean[] };

function withXor(bytes: number[]): Buffer {
  return Buffer.from([...bytes, xor8(bytes)]);
}

/** lock 0 = every lock of the board. */
export function encodeQuery(board: number, lock = 0): Buffer {
  return withXor([HEADER_QUERY, board, lock, FUNC_QUERY]);
}

/** lock 0 = every lock of the board, one after the other. */
export function encodeUnlock(board: number, lock: number, state = FUNC_UNLOCK): Buffer {
  return withXor([HEADER_UNLOCK, board, lock, state]);
}

export function encodeStatusReply(board: number, hooks: readonly boolean[]): Buffer {
  const [g1 = 0, g2 = 0, g3 = 0] = packBits(hooks, 3);
  return withXor([HEADER_QUERY, board, g3, g2, g1, FUNC_QUERY]);
}

export function parseGeneric24Frame(buf: Buffer): ParseResult<Generic24Frame> {
  const head = buf[0];
  if (head !== HEADER_QUERY && head !== HEADER_UNLOCK) return { kind: 'skip' };
  if (buf.length < 5) return { kind: 'more' };
  const board = buf[1] ?? 0;
  if (head === HEADER_UNLOCK) {
    if (xor8(buf, 4) !== buf[4]) return { kind: 'bad', length: 5, reason: 'checksum' };
    return { kind: 'frame', length: 5, frame: { type: 'unlock', board, lock: buf[2] ?? 0, state: buf[3] ?? 0 } };
  }
  if (buf[3] === FUNC_QUERY && xor8(buf, 4) === buf[4]) {
    return { kind: 'frame', length: 5, frame: { type: 'query', board, lock: buf[2] ?? 0 } };
  }
  if (buf.length < 7) return { kind: 'more' };
  if (buf[5] !== FUNC_QUERY) return { kind: 'skip' };
  if (xor8(buf, 6) !== buf[6]) return { kind: 'bad', length: 7, reason: 'checksum' };
  const groups = [buf[4] ?? 0, buf[3] ?? 0, buf[2] ?? 0];
  return { kind: 'frame', length: 7, frame: { type: 'status-reply', board, hooks: bitsOf(groups, LOCKS) } };
}
