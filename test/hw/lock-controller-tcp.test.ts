/**
 * The lock controller against the simulator over TCP: real sockets, real bytes, short delays.
 * No assertion depends on how long anything took.
 */
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loggerOptions } from '../../shared/src/redact.js';
import { busConfigSchema, createLockHardware, HardwareError, type BoardEvent, type BusConfigInput, type LockHardware } from '../../agent/src/hw/index.js';
import { startSimulator, type SimulatorHandle } from '../../sim/src/index.js';
import { nextBoardEvent, readWhenBack } from './support.js';

const logger = pino(loggerOptions('test-hw', process.env.LOG_LEVEL ?? 'silent'));
// The frame timeout is the only way a bus tells silence from a slow reply, so it must be long
// beside a busy machine's event-loop stalls: a 40 ms one resent frames (and broke the request
// counts) under load. Only the silent-board tests wait it out.
const fast: Partial<BusConfigInput> = { frameTimeoutMs: 1_000, retries: 2, confirmDelayMs: 5, confirmReads: 2, interFrameDelayMs: 0, reconnectMinMs: 50, reconnectMaxMs: 200 };

describe('LockController over TCP, KR-CU48 simulator', () => {
  let sim: SimulatorHandle;
  let hw: LockHardware;

  beforeEach(async () => {
    sim = await startSimulator({ buses: [{ name: 'main', family: 'kerong-cu48', boards: [{ address: 0 }, { address: 1, polarity: 'inverted' }] }], scanner: false });
    const cfg = busConfigSchema.parse({ ...sim.busConfig('main'), ...fast });
    hw = createLockHardware([cfg], logger);
    await hw.start();
  });

  afterEach(async () => {
    await hw.stop();
    await sim.stop();
  });

  it('reads every board at start: all doors closed, none offline, polarity applied', async () => {
    const all = await hw.readAll();
    expect(all.offline).toEqual([]);
    expect(all.doors).toHaveLength(96);
    expect(all.doors.every((d) => d.closed)).toBe(true);
    sim.openDoor({ board: 1, lock: 7 });
    const board1 = await hw.readBoard('main', 1);
    expect(board1.get(7)).toBe(false);
    expect([...board1.values()].filter((c) => !c)).toHaveLength(1);
  });

  it('opens a door: one pulse, confirmed by a status read; the person closes it again', async () => {
    const result = await hw.open({ bus: 'main', board: 0, lock: 5 });
    expect(result).toEqual({ ok: true, attempts: 1 });
    expect(sim.isOpen({ board: 0, lock: 5 })).toBe(true);
    expect(sim.pulses({ board: 0, lock: 5 })).toBe(1);
    expect((await hw.readBoard('main', 0)).get(5)).toBe(false);
    expect(sim.closeDoor({ board: 0, lock: 5 })).toBe(true);
    expect((await hw.readBoard('main', 0)).get(5)).toBe(true);
  });

  it('opens a lock on an inverted-polarity board', async () => {
    expect(await hw.open({ bus: 'main', board: 1, lock: 48 })).toEqual({ ok: true, attempts: 1 });
    expect(sim.isOpen({ board: 1, lock: 48 })).toBe(true);
  });

  it('pulses a door that already reads open (a broken switch reads open too)', async () => {
    sim.openDoor({ board: 0, lock: 2 });
    expect(await hw.open({ bus: 'main', board: 0, lock: 2 })).toEqual({ ok: true, attempts: 1 });
    expect(sim.pulses({ board: 0, lock: 2 })).toBe(1);
  });

  it('reports a jammed lock after the configured number of pulses', async () => {
    sim.setFault({ kind: 'jammed', board: 0, lock: 9 });
    expect(await hw.open({ bus: 'main', board: 0, lock: 9 })).toEqual({ ok: false, reason: 'jammed', attempts: 3 });
    expect(sim.pulses({ board: 0, lock: 9 })).toBe(3);
    expect(await hw.open({ bus: 'main', board: 0, lock: 9 }, { attempts: 1 })).toEqual({ ok: false, reason: 'jammed', attempts: 1 });
    expect(sim.pulses({ board: 0, lock: 9 })).toBe(4);
    sim.clearFault({ kind: 'jammed', board: 0, lock: 9 });
    expect(await hw.open({ bus: 'main', board: 0, lock: 9 })).toEqual({ ok: true, attempts: 1 });
  });

  it('a duplicate open while the first is under way does not pulse twice', async () => {
    const cell = { bus: 'main', board: 0, lock: 12 };
    const [a, b] = await Promise.all([hw.open(cell), hw.open(cell)]);
    expect(a).toEqual({ ok: true, attempts: 1 });
    expect(b).toEqual(a);
    expect(sim.pulses(cell)).toBe(1);
  });

  it('a silent board gives no_reply and goes offline, then comes back online', async () => {
    const offline = nextBoardEvent(hw, (e) => !e.online);
    sim.setFault({ kind: 'no-reply', board: 1 });
    expect(await hw.open({ bus: 'main', board: 1, lock: 3 })).toEqual({ ok: false, reason: 'no_reply', attempts: 1 });
    expect(await offline).toEqual({ bus: 'main', board: 1, online: false });
    await expect(hw.readBoard('main', 1)).rejects.toSatisfy((e) => e instanceof HardwareError && e.code === 'no_reply');
    const all = await hw.readAll();
    expect(all.offline).toEqual([{ bus: 'main', board: 1 }]);
    expect(all.doors).toHaveLength(48);

    const online = nextBoardEvent(hw, (e) => e.online);
    sim.clearFault({ kind: 'no-reply', board: 1 });
    expect((await hw.readBoard('main', 1)).size).toBe(48);
    expect(await online).toEqual({ bus: 'main', board: 1, online: true });
  });

  it('retries after a reply with a wrong checksum', async () => {
    sim.setFault({ kind: 'bad-checksum', board: 0, count: 2 });
    sim.openDoor({ board: 0, lock: 30 });
    const doors = await hw.readBoard('main', 0);
    expect(doors.get(30)).toBe(false);
    const board = sim.state().buses[0]!.boards[0]!;
    expect(board.badChecksum).toBe(0);
    expect(board.requests).toBe(3);
  });

  it('keeps working on a noisy line', async () => {
    sim.setFault({ kind: 'noise', bytes: 8 });
    for (const lock of [1, 17, 33, 48]) {
      expect(await hw.open({ bus: 'main', board: 0, lock })).toMatchObject({ ok: true });
    }
    const doors = await hw.readBoard('main', 0);
    expect([...doors].filter(([, closed]) => !closed).map(([lock]) => lock)).toEqual([1, 17, 33, 48]);
  });

  it('a door left open cannot be closed and keeps reading open; opening it still pulses', async () => {
    sim.setFault({ kind: 'door-left-open', board: 0, lock: 4 });
    expect(await hw.open({ bus: 'main', board: 0, lock: 4 })).toEqual({ ok: true, attempts: 1 });
    expect(sim.closeDoor({ board: 0, lock: 4 })).toBe(false);
    expect((await hw.readBoard('main', 0)).get(4)).toBe(false);
    expect(await hw.open({ bus: 'main', board: 0, lock: 4 })).toEqual({ ok: true, attempts: 1 });
    expect(sim.pulses({ board: 0, lock: 4 })).toBe(2);
  });

  it('reconnects after the TCP bridge drops the connection', async () => {
    sim.dropConnections();
    // The first reads may fail while the transport reconnects; it must come back on its own.
    const doors = await readWhenBack(hw, 'main', 0);
    expect(doors?.size).toBe(48);
  });

  it('refuses addresses the configuration does not have', async () => {
    await expect(hw.readBoard('main', 5)).rejects.toSatisfy((e) => e instanceof HardwareError && e.code === 'unknown_address');
    await expect(hw.open({ bus: 'main', board: 0, lock: 49 })).rejects.toSatisfy((e) => e instanceof HardwareError && e.code === 'unknown_address');
    await expect(hw.readBoard('other', 0)).rejects.toSatisfy((e) => e instanceof HardwareError && e.code === 'unknown_address');
  });
});

describe('LockController when the TCP bridge is not there yet', () => {
  it('starts anyway, reports no_reply, and connects once the bridge appears', async () => {
    const probe = net.createServer();
    await new Promise<void>((res) => probe.listen(0, '127.0.0.1', res));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((res) => probe.close(() => res()));

    const cfg = busConfigSchema.parse({ path: `tcp://127.0.0.1:${port}`, family: 'kerong-cu48', boards: [{ address: 0 }], ...fast });
    const hw = createLockHardware([cfg], logger);
    const events: BoardEvent[] = [];
    hw.on('board', (e) => events.push(e));
    await hw.start();
    expect(await hw.open({ bus: 'main', board: 0, lock: 1 })).toEqual({ ok: false, reason: 'no_reply', attempts: 1 });
    expect((await hw.readAll()).offline).toEqual([{ bus: 'main', board: 0 }]);
    expect(events).toEqual([{ bus: 'main', board: 0, online: false }]);

    const sim = await startSimulator({ buses: [{ name: 'main', boards: 1, port }], scanner: false });
    try {
      const doors = await readWhenBack(hw, 'main', 0);
      expect(doors?.size).toBe(48);
      expect(events.at(-1)).toEqual({ bus: 'main', board: 0, online: true });
    } finally {
      await hw.stop();
      await sim.stop();
    }
  });
});
