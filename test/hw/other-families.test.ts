/** Winnsen and generic 24-channel boards: codec vectors, then the same driver path on the simulator. */
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loggerOptions } from '../../shared/src/redact.js';
import { FrameDecoder } from '@parcel-locker/hw-protocol';
import * as winnsen from '@parcel-locker/hw-protocol/winnsen';
import * as generic from '@parcel-locker/hw-protocol/generic-24';
import { busConfigSchema, createLockHardware, type LockHardware } from '../../agent/src/hw/index.js';
import { startSimulator, type SimFamily, type SimulatorHandle } from '../../sim/src/index.js';

const logger = pino(loggerOptions('test-families', process.env.LOG_LEVEL ?? 'silent'));
const h = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('Winnsen codec', () => {
  it('encodes unlock and status requests as docs/hardware.md lays them out', () => {
    expect(winnsen.encodeRequest('unlock', 1, 5)).toEqual(h('90 06 05 01 05 03'));
    expect(winnsen.encodeRequest('status', 2, 24)).toEqual(h('90 06 12 02 18 03'));
  });

  it('decodes replies, and resyncs after noise with no checksum to rely on', () => {
    const d = new FrameDecoder(winnsen.parseWinnsenFrame);
    const events = d.push(h('90 07 85 01 05 01 03 90 FF 90 07 92 02 18 00 03 90 07 92 02 17 01 03 90 07 92 02 16 05 03'));
    expect(events.flatMap((e) => (e.type === 'frame' ? [e.frame] : []))).toEqual([
      { type: 'unlock-reply', station: 1, lock: 5, done: true },
      { type: 'status-reply', station: 2, lock: 24, open: false },
      { type: 'status-reply', station: 2, lock: 23, open: true },
    ]);
    expect(events.at(-1)?.type).toBe('noise');
  });
});

describe('generic 24-channel codec', () => {
  it('encodes the query of all locks of board 1 and an unlock (XOR check byte)', () => {
    expect(generic.encodeQuery(1)).toEqual(h('80 01 00 33 B2'));
    expect(generic.encodeUnlock(1, 1)).toEqual(h('8A 01 01 11 9B'));
    expect(generic.encodeUnlock(1, 0)).toEqual(h('8A 01 00 11 9A'));
  });

  it('decodes the all-locks reply: byte 2 holds locks 17-24, byte 4 locks 1-8', () => {
    const r = generic.parseGeneric24Frame(h('80 01 01 01 01 33 B3'));
    expect(r.kind).toBe('frame');
    if (r.kind !== 'frame' || r.frame.type !== 'status-reply') throw new Error('not a status reply');
    expect(r.frame.hooks.flatMap((b, i) => (b ? [i + 1] : []))).toEqual([1, 9, 17]);
    expect(generic.encodeStatusReply(1, r.frame.hooks)).toEqual(h('80 01 01 01 01 33 B3'));
  });

  it('rejects a wrong XOR and finds the frame after it', () => {
    const d = new FrameDecoder(generic.parseGeneric24Frame);
    const types = d.push(h('80 01 01 01 01 33 B4 8A 01 01 00 8A')).map((e) => e.type);
    expect(types).toEqual(['bad', 'noise', 'frame']);
  });
});

describe.each<SimFamily>(['winnsen', 'generic-24'])('%s boards on the simulator over TCP', (family) => {
  let sim: SimulatorHandle | undefined;
  let hw: LockHardware | undefined;

  afterEach(async () => {
    await hw?.stop();
    await sim?.stop();
  });

  it('reads, opens, reports jammed and survives a silent board', async () => {
    sim = await startSimulator({ buses: [{ name: 'main', family, boards: [{ address: 1 }, { address: 2, polarity: 'inverted' }] }], scanner: false });
    const cfg = busConfigSchema.parse({ ...sim.busConfig(), frameTimeoutMs: 1_000, confirmDelayMs: 5, confirmReads: 1, boards: [{ address: 1 }, { address: 2, polarity: 'inverted', locks: 8 }] });
    hw = createLockHardware([cfg], logger);
    await hw.start();
    const all = await hw.readAll();
    expect(all.doors).toHaveLength(24 + 8);
    expect(all.doors.every((d) => d.closed)).toBe(true);

    expect(await hw.open({ bus: 'main', board: 1, lock: 24 })).toEqual({ ok: true, attempts: 1 });
    expect(await hw.open({ bus: 'main', board: 2, lock: 8 })).toEqual({ ok: true, attempts: 1 });
    expect(sim.isOpen({ board: 2, lock: 8 })).toBe(true);
    expect((await hw.readBoard('main', 2)).get(8)).toBe(false);

    sim.setFault({ kind: 'jammed', board: 1, lock: 3 });
    expect(await hw.open({ bus: 'main', board: 1, lock: 3 })).toEqual({ ok: false, reason: 'jammed', attempts: 3 });
    expect(sim.pulses({ board: 1, lock: 3 })).toBe(3);

    sim.setFault({ kind: 'no-reply', board: 2 });
    expect((await hw.readAll()).offline).toEqual([{ bus: 'main', board: 2 }]);
  });
});
