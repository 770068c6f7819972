/**
 * Timeouts, resends and the open/confirm cycle on fake time: the simulator's bytes travel through
 * an in-process pipe, so the clock is the only thing that moves the exchange along.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { loggerOptions } from '../../shared/src/redact.js';
import { busConfigSchema, createLockHardware, HardwareError, type BoardEvent, type LockHardware } from '../../agent/src/hw/index.js';
import { startSimulator, type SimulatorHandle } from '../../sim/src/index.js';

const logger = pino(loggerOptions('test-bus-timing', process.env.LOG_LEVEL ?? 'silent'));

/** Settles a promise into a value we can inspect after moving the clock. */
function settle<T>(p: Promise<T>): { done: () => boolean; result: () => Promise<T> } {
  let finished = false;
  const settled = p.then(
    (v) => ((finished = true), { v }),
    (e: unknown) => ((finished = true), { e }),
  );
  return {
    done: () => finished,
    result: async () => {
      const r = await settled;
      if ('e' in r) throw r.e;
      return r.v;
    },
  };
}

describe('bus timing on fake time (KR-CU48 simulator, in-process pipe)', () => {
  let sim: SimulatorHandle;
  let hw: LockHardware;
  const events: BoardEvent[] = [];
  const requests = (board = 0): number => sim.state().buses[0]!.boards.find((b) => b.address === board)!.requests;

  beforeEach(async () => {
    sim = await startSimulator({ buses: [{ name: 'main', boards: 2 }], scanner: false });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const cfg = busConfigSchema.parse({ ...sim.busConfig('main'), frameTimeoutMs: 300, retries: 2, confirmDelayMs: 200, confirmReads: 3, openAttempts: 3, interFrameDelayMs: 20 });
    hw = createLockHardware([cfg], logger, { createTransport: () => sim.connect({ bus: 'main' }) });
    events.length = 0;
    hw.on('board', (e) => events.push(e));
    await hw.start();
  });

  afterEach(async () => {
    await hw.stop();
    vi.useRealTimers();
    await sim.stop();
  });

  it('resends a status request only when the frame timeout has passed', async () => {
    sim.setFault({ kind: 'no-reply', board: 0, count: 1 });
    const read = settle(hw.readBoard('main', 0));
    await vi.advanceTimersByTimeAsync(299);
    expect(requests()).toBe(1);
    expect(read.done()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests()).toBe(2);
    expect((await read.result()).size).toBe(48);
    expect(events).toEqual([]);
  });

  it('gives up after 1 + retries tries, reports no_reply and the board offline, then online again', async () => {
    sim.setFault({ kind: 'no-reply', board: 0, count: 3 });
    const read = settle(hw.readBoard('main', 0));
    await vi.advanceTimersByTimeAsync(899);
    expect(read.done()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(read.result()).rejects.toSatisfy((e) => e instanceof HardwareError && e.code === 'no_reply');
    expect(requests()).toBe(3);
    expect(events).toEqual([{ bus: 'main', board: 0, online: false }]);
    // The other board on the same bus is unaffected.
    expect((await hw.readBoard('main', 1)).size).toBe(48);
    expect((await hw.readBoard('main', 0)).size).toBe(48);
    expect(events).toEqual([
      { bus: 'main', board: 0, online: false },
      { bus: 'main', board: 0, online: true },
    ]);
  });

  it('a jammed lock: 3 pulses, each followed by 3 confirming reads, then jammed', async () => {
    sim.setFault({ kind: 'jammed', board: 1, lock: 40 });
    const open = settle(hw.open({ bus: 'main', board: 1, lock: 40 }));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await open.result()).toEqual({ ok: false, reason: 'jammed', attempts: 3 });
    expect(sim.pulses({ board: 1, lock: 40 })).toBe(3);
    expect(requests(1)).toBe(3 + 9);
  });

  it('a door that opens late is confirmed by a later read without a second pulse', async () => {
    sim.setFault({ kind: 'jammed', board: 0, lock: 1 });
    const open = settle(hw.open({ bus: 'main', board: 0, lock: 1 }));
    await vi.advanceTimersByTimeAsync(250);
    expect(requests()).toBe(2); // the pulse and the first read
    sim.openDoor({ board: 0, lock: 1 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(await open.result()).toEqual({ ok: true, attempts: 1 });
    expect(sim.pulses({ board: 0, lock: 1 })).toBe(1);
  });

  it('a second open of the same cell during the first shares its result; another cell is not held up', async () => {
    const first = settle(hw.open({ bus: 'main', board: 0, lock: 10 }));
    await vi.advanceTimersByTimeAsync(50);
    const again = settle(hw.open({ bus: 'main', board: 0, lock: 10 }));
    const other = settle(hw.open({ bus: 'main', board: 0, lock: 11 }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(await first.result()).toEqual({ ok: true, attempts: 1 });
    expect(await again.result()).toEqual({ ok: true, attempts: 1 });
    expect(await other.result()).toEqual({ ok: true, attempts: 1 });
    expect(sim.pulses({ board: 0, lock: 10 })).toBe(1);
    expect(sim.pulses({ board: 0, lock: 11 })).toBe(1);
    // Once finished, a new open pulses again.
    const later = settle(hw.open({ bus: 'main', board: 0, lock: 10 }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(await later.result()).toEqual({ ok: true, attempts: 1 });
    expect(sim.pulses({ board: 0, lock: 10 })).toBe(2);
  });

  it('stop() fails the requests still queued instead of leaving them hanging', async () => {
    sim.setFault({ kind: 'no-reply', board: 0 });
    const a = settle(hw.readBoard('main', 0));
    const b = settle(hw.readBoard('main', 1));
    await vi.advanceTimersByTimeAsync(10);
    const stopping = hw.stop();
    await vi.advanceTimersByTimeAsync(1000);
    await stopping;
    await expect(a.result()).rejects.toSatisfy((e) => e instanceof HardwareError && e.code === 'not_started');
    expect(events).toEqual([]);
    await expect(b.result()).rejects.toSatisfy((e) => e instanceof HardwareError && e.code === 'not_started');
  });
});
