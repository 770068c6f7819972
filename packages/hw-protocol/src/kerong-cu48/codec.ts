/**
 * Kerong KR-CU48 frames (vendor document "CU48 Protocol and Introduction" v2.1).
 * Request `02 ADDR LOCKNUM CMD 03 SUM`, status reply `02 ADDR LOCKNUM 65 D1..D6 03 SUM`,
 * SUM = low byte of the sum of the bytes before it. Unlock has no reply.
 */
import { bitsOf, packBits, sum8 } from '../bytes.js';
import type { ParseResult } from '../frame-decoder.js';

export const STX = 0x02;
export const ETX = 0x03;
export const CMD_STATUS = 0x50;
export const CMD_UNLOCK = 0x51;
export const REPLY_STATUS = 0x65;
/** ADDR that every board on the bus obeys. */
export const BROADCAST_ADDRESS = 0x0a;
/** LOCKNUM meaning all 48 locks. */
export const ALL_LOCKS = 0x30;
export const LOCKS = 48;
const REQUEST_LENGTH = 6;
const REPLY_LENGTH = 12;

export type Cu48Frame =
  | { type: 'status-request'; address: number; lockByte: number }
  | { type: 'unlock-request'; address: number; /** 1-48, or 'all' */ lock: number | 'all' }
  /** hooks[0] is lock 1; true = bit set (locked on normal-polarity boards). */
  | { type: 'status-reply'; address: number; hooks: boolean[] };

function request(address: number, lockByte: number, cmd: number): Buffer {
  const b = [STX, address, lockByte, cmd, ETX];
  return Buffer.from([...b, sum8(b)]);
}

export function encodeStatusRequest(address: number): Buffer {
  return request(address, 0x00, CMD_STATUS);
}

/** `lock` is 1-based; 'all' opens every lock of the board (or of every board with the broadcast address). */
export function encodeUnlockRequest(address: number, lock: number | 'all'): Buffer {
  if (lock !== 'all' && (lock < 1 || lock > LOCKS)) throw new RangeError(`CU48 lock ${lock} out of 1-${LOCKS}`);
  return request(address, lock === 'all' ? ALL_LOCKS : lock - 1, CMD_UNLOCK);
}

export function encodeStatusReply(address: number, hooks: readonly boolean[], lockByte = 0x00): Buffer {
  const b = [STX, address, lockByte, REPLY_STATUS, ...packBits(hooks, 6), ETX];
  return Buffer.from([...b, sum8(b)]);
}

export function parseCu48Frame(buf: Buffer): ParseResult<Cu48Frame> {
  if (buf[0] !== STX) return { kind: 'skip' };
  if (buf.length < 4) return { kind: 'more' };
  const cmd = buf[3];
  const length = cmd === REPLY_STATUS ? REPLY_LENGTH : cmd === CMD_STATUS || cmd === CMD_UNLOCK ? REQUEST_LENGTH : 0;
  if (length === 0) return { kind: 'skip' };
  if (buf.length < length) return { kind: 'more' };
  if (buf[length - 2] !== ETX) return { kind: 'skip' };
  if (buf[length - 1] !== sum8(buf, length - 1)) return { kind: 'bad', length, reason: 'checksum' };
  const address = buf[1] ?? 0;
  const lockByte = buf[2] ?? 0;
  if (cmd === REPLY_STATUS) {
    return { kind: 'frame', length, frame: { type: 'status-reply', address, hooks: bitsOf(buf.subarray(4, 10), LOCKS) } };
  }
  if (cmd === CMD_STATUS) return { kind: 'frame', length, frame: { type: 'status-request', address, lockByte } };
  return { kind: 'frame', length, frame: { type: 'unlock-request', address, lock: lockByte === ALL_LOCKS ? 'all' : lockByte + 1 } };
}
