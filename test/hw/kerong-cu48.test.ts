import { describe, expect, it } from 'vitest';
import {
  encodeStatusReply,
  encodeStatusRequest,
  encodeUnlockRequest,
  parseCu48Frame,
  BROADCAST_ADDRESS,
  type Cu48Frame,
} from '@parcel-locker/hw-protocol/kerong-cu48';
import { FrameDecoder } from '@parcel-locker/hw-protocol';

const h = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const lockedSet = (hooks: boolean[]): number[] => hooks.flatMap((b, i) => (b ? [i + 1] : []));

describe('Kerong KR-CU48 codec (byte vectors of docs/hardware.md)', () => {
  it('encodes the status request of board 0 and the broadcast status request', () => {
    expect(encodeStatusRequest(0)).toEqual(h('02 00 00 50 03 55'));
    expect(encodeStatusRequest(BROADCAST_ADDRESS)).toEqual(h('02 0A 00 50 03 5F'));
  });

  it('encodes unlock of one lock, of a whole board and of every board', () => {
    expect(encodeUnlockRequest(0, 1)).toEqual(h('02 00 00 51 03 56'));
    expect(encodeUnlockRequest(0, 'all')).toEqual(h('02 00 30 51 03 86'));
    expect(encodeUnlockRequest(BROADCAST_ADDRESS, 'all')).toEqual(h('02 0A 30 51 03 90'));
    expect(() => encodeUnlockRequest(0, 49)).toThrow(RangeError);
    expect(() => encodeUnlockRequest(0, 0)).toThrow(RangeError);
  });

  it('decodes the status reply of board 0: locks 1, 2, 3, 47, 48 locked', () => {
    const d = new FrameDecoder(parseCu48Frame);
    const [ev, ...rest] = d.push(h('02 00 00 65 07 00 00 00 00 C0 03 31'));
    expect(rest).toEqual([]);
    expect(ev?.type).toBe('frame');
    const frame = (ev as { frame: Cu48Frame }).frame;
    expect(frame.type).toBe('status-reply');
    if (frame.type !== 'status-reply') return;
    expect(frame.address).toBe(0);
    expect(frame.hooks).toHaveLength(48);
    expect(lockedSet(frame.hooks)).toEqual([1, 2, 3, 47, 48]);
  });

  it('decodes board 1 with only lock 24 locked, and encodes the same bytes back', () => {
    const bytes = h('02 01 00 65 00 00 80 00 00 00 03 EB');
    const r = parseCu48Frame(bytes);
    expect(r.kind).toBe('frame');
    if (r.kind !== 'frame' || r.frame.type !== 'status-reply') throw new Error('not a status reply');
    expect(lockedSet(r.frame.hooks)).toEqual([24]);
    expect(encodeStatusReply(1, r.frame.hooks)).toEqual(bytes);
    expect(encodeStatusReply(0, Array.from({ length: 48 }, (_, i) => [0, 1, 2, 46, 47].includes(i)))).toEqual(
      h('02 00 00 65 07 00 00 00 00 C0 03 31'),
    );
  });

  it('decodes requests (what the simulator reads)', () => {
    const d = new FrameDecoder(parseCu48Frame);
    const frames = d
      .push(h('02 00 00 50 03 55 02 00 00 51 03 56 02 0A 30 51 03 90 02 00 30 51 03 86'))
      .map((e) => (e.type === 'frame' ? e.frame : e.type));
    expect(frames).toEqual([
      { type: 'status-request', address: 0, lockByte: 0 },
      { type: 'unlock-request', address: 0, lock: 1 },
      { type: 'unlock-request', address: 10, lock: 'all' },
      { type: 'unlock-request', address: 0, lock: 'all' },
    ]);
  });

  it('reassembles frames split across chunks, one byte at a time', () => {
    const d = new FrameDecoder(parseCu48Frame);
    const bytes = h('02 00 00 65 07 00 00 00 00 C0 03 31 02 01 00 65 00 00 80 00 00 00 03 EB');
    const types: string[] = [];
    for (const b of bytes) for (const e of d.push(Buffer.from([b]))) types.push(e.type);
    expect(types).toEqual(['frame', 'frame']);
    expect(d.pending).toBe(0);
  });

  it('reports a frame with a wrong checksum and still finds the good frame after it', () => {
    const d = new FrameDecoder(parseCu48Frame);
    const events = d.push(h('02 00 00 65 07 00 00 00 00 C0 03 32 02 01 00 65 00 00 80 00 00 00 03 EB'));
    expect(events.map((e) => e.type)).toEqual(['bad', 'noise', 'frame']);
    const last = events.at(-1);
    expect(last?.type === 'frame' && last.frame.type === 'status-reply' && last.frame.address).toBe(1);
  });

  it('resyncs after noise, including noise that contains STX', () => {
    const d = new FrameDecoder(parseCu48Frame);
    const events = d.push(h('FF 02 13 37 02 7E 02 00 00 65 07 00 00 00 00 C0 03 31 A5'));
    expect(events.map((e) => e.type)).toEqual(['noise', 'frame', 'noise']);
  });
});
