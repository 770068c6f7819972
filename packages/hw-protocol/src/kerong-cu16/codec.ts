/**
 * Kerong KR-CU16 / CU12 frames. Request `02 ADDR CMD 03 SUM` with ADDR = (board << 4) | (lock - 1);
 * reply `02 ADDR 35 HOOK1-8 HOOK9-16 IR1-8 IR9-16 03 SUM`. SUM = low byte of the sum before it.
 * 0xF0 addresses every board, so boards are numbered 0-14.
 */
import { bitsOf, packBits, sum8 } from '../bytes.js';
import type { ParseResult } from '../frame-decoder.js';

export const STX = 0x02;
export const ETX = 0x03;
export const CMD_STATUS = 0x30;
export const CMD_UNLOCK = 0x31;
export const CMD_STATUS_ALL = 0x32;
export const CMD_UNLOCK_ALL = 0x33;
export const REPLY_STATUS = 0x35;
export const BROADCAST_ADDRESS = 0xf0;
export const LOCKS = 16;
const REQUEST_LENGTH = 5;
const REPLY_LENGTH = 9;

export type Cu16Command = 'status' | 'unlock' | 'status-all' | 'unlock-all';

const COMMAND_BYTES: Record<Cu16Command, number> = {
  status: CMD_STATUS,
  unlock: CMD_UNLOCK,
  'status-all': CMD_STATUS_ALL,
  'unlock-all': CMD_UNLOCK_ALL,
};

export type Cu16Frame =
  | { type: 'request'; command: Cu16Command; address: number }
  /** hooks/items[0] is lock 1; hook true = bit set (locked on normal-polarity boards), item true = present. */
  | { type: 'status-reply'; address: number; hooks: boolean[]; items: boolean[] };

/** ADDR byte of a lock (1-based). */
export function cu16Address(board: number, lock = 1): number {
  if (board < 0 || board > 14) throw new RangeError(`CU16 board ${board} out of 0-14`);
  if (lock < 1 || lock > LOCKS) throw new RangeError(`CU16 lock ${lock} out of 1-${LOCKS}`);
  return (board << 4) | (lock - 1);
}

export function boardOf(address: number): number {
  return address >> 4;
}

export function lockOf(address: number): number {
  return (address & 0x0f) + 1;
}

export function encodeRequest(command: Cu16Command, address: number): Buffer {
  const b = [STX, address, COMMAND_BYTES[command], ETX];
  return Buffer.from([...b, sum8(b)]);
}

export function encodeStatusReply(address: number, hooks: readonly boolean[], items: readonly boolean[]): Buffer {
  const b = [STX, address, REPLY_STATUS, ...packBits(hooks, 2), ...packBits(items, 2), ETX];
  return Buffer.from([...b, sum8(b)]);
}

const COMMANDS = new Map<number, Cu16Command>(Object.entries(COMMAND_BYTES).map(([k, v]) => [v, k as Cu16Command]));

export function parseCu16Frame(buf: Buffer): ParseResult<Cu16Frame> {
  if (buf[0] !== STX) return { kind: 'skip' };
  if (buf.length < 3) return { kind: 'more' };
  const cmd = buf[2] ?? 0;
  const command = COMMANDS.get(cmd);
  const length = cmd === REPLY_STATUS ? REPLY_LENGTH : command ? REQUEST_LENGTH : 0;
  if (length === 0) return { kind: 'skip' };
  if (buf.length < length) return { kind: 'more' };
  if (buf[length - 2] !== ETX) return { kind: 'skip' };
  if (buf[length - 1] !== sum8(buf, length - 1)) return { kind: 'bad', length, reason: 'checksum' };
  const address = buf[1] ?? 0;
  if (command) return { kind: 'frame', length, frame: { type: 'request', command, address } };
  return {
    kind: 'frame',
    length,
    frame: { type: 'status-reply', address, hooks: bitsOf(buf.subarray(3, 5), LOCKS), items: bitsOf(buf.subarray(5, 7), LOCKS) },
  };
}
