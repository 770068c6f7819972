import { describe, expect, it } from 'vitest';
import {
  BROADCAST_ADDRESS,
  boardOf,
  cu16Address,
  encodeRequest,
  encodeStatusReply,
  lockOf,
  parseCu16Frame,
  type Cu16Frame,
} from '@parcel-locker/hw-protocol/kerong-cu16';
import { FrameDecoder } from '@parcel-locker/hw-protocol';

const h = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const frames = (d: FrameDecoder<Cu16Frame>, bytes: Buffer): Cu16Frame[] => d.push(bytes).flatMap((e) => (e.type === 'frame' ? [e.frame] : []));

describe('Kerong KR-CU16 codec (byte vectors of docs/hardware.md)', () => {
  it('encodes status of board 0, unlock of lock 1 of board 0 and of lock 16 of board 1', () => {
    expect(encodeRequest('status', cu16Address(0))).toEqual(h('02 00 30 03 35'));
    expect(encodeRequest('unlock', cu16Address(0, 1))).toEqual(h('02 00 31 03 36'));
    expect(encodeRequest('unlock', cu16Address(1, 16))).toEqual(h('02 1F 31 03 55'));
  });

  it('maps ADDR to board and lock; board 15 is the broadcast and is refused', () => {
    expect(cu16Address(1, 16)).toBe(0x1f);
    expect(boardOf(0x1f)).toBe(1);
    expect(lockOf(0x1f)).toBe(16);
    expect(BROADCAST_ADDRESS).toBe(0xf0);
    expect(() => cu16Address(15, 1)).toThrow(RangeError);
    expect(() => cu16Address(0, 17)).toThrow(RangeError);
  });

  it('decodes requests of every command', () => {
    const d = new FrameDecoder(parseCu16Frame);
    const bytes = Buffer.concat([
      h('02 00 30 03 35'),
      h('02 1F 31 03 55'),
      encodeRequest('status-all', BROADCAST_ADDRESS),
      encodeRequest('unlock-all', cu16Address(2)),
    ]);
    expect(frames(d, bytes)).toEqual([
      { type: 'request', command: 'status', address: 0x00 },
      { type: 'request', command: 'unlock', address: 0x1f },
      { type: 'request', command: 'status-all', address: 0xf0 },
      { type: 'request', command: 'unlock-all', address: 0x20 },
    ]);
  });

  it('round-trips a 9-byte status reply with hook and infrared bytes', () => {
    const hooks = Array.from({ length: 16 }, (_, i) => i === 0 || i === 15);
    const items = Array.from({ length: 16 }, (_, i) => i === 8);
    const bytes = encodeStatusReply(0x10, hooks, items);
    // 02 10 35 | hooks 1-8 = 01, 9-16 = 80 | IR 1-8 = 00, 9-16 = 01 | 03 | sum
    expect(bytes).toEqual(h('02 10 35 01 80 00 01 03 CC'));
    const d = new FrameDecoder(parseCu16Frame);
    expect(frames(d, bytes)).toEqual([{ type: 'status-reply', address: 0x10, hooks, items }]);
  });

  it('rejects a bad checksum and resyncs on the next frame', () => {
    const d = new FrameDecoder(parseCu16Frame);
    const events = d.push(h('AA 02 10 35 01 80 00 01 03 CD 02 00 35 00 00 00 00 03 3A'));
    expect(events.map((e) => e.type)).toEqual(['noise', 'bad', 'noise', 'frame']);
  });
});
