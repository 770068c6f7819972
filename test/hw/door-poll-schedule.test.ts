/**
 * The door poll's schedule, counted in the simulator's bytes on fake time: four KR-CU48 boards on
 * one bus are each read once per round, a round every `doors.pollMs` (the default).
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { agentConfigSchema } from '../../agent/src/config.js';
import { busConfigSchema, createLockHardware, type LockHardware } from '../../agent/src/hw/index.js';
import { DoorSupervisor } from '../../agent/src/locker/doors.js';
import { openStore, type LockerStore } from '../../agent/src/store/index.js';
import { startSimulator, type SimulatorHandle } from '../../sim/src/index.js';

const silent = pino({ level: 'silent' });
const BOARDS = 4;

describe('door poll schedule (four KR-CU48 boards, in-process pipe, fake time)', () => {
  let sim: SimulatorHandle;
  let hw: LockHardware;
  let store: LockerStore;
  let doors: DoorSupervisor;
  const pollMs = agentConfigSchema.shape.doors.parse(undefined).pollMs;
  const requests = (): number[] => sim.state().buses[0]!.boards.map((b) => b.requests);

  beforeEach(async () => {
    sim = await startSimulator({ buses: [{ name: 'main', boards: BOARDS }], scanner: false });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    hw = createLockHardware([busConfigSchema.parse(sim.busConfig('main'))], silent, { createTransport: () => sim.connect({ bus: 'main' }) });
    await hw.start();
    store = openStore(':memory:', { now: () => Date.now() });
    doors = new DoorSupervisor(store, hw, { now: () => Date.now() }, silent, { pollMs, leftOpenMs: 180_000 }, () => undefined);
  });

  afterEach(async () => {
    await doors.stop();
    await hw.stop();
    vi.useRealTimers();
    await sim.stop();
    store.close();
  });

  it('reads every board once per round, a round every pollMs: a closing door is seen within 100 ms', async () => {
    expect(pollMs).toBeLessThanOrEqual(50);
    await doors.start();
    const seconds = 2;
    await vi.advanceTimersByTimeAsync(seconds * 1000);
    const rounds = (seconds * 1000) / pollMs;
    for (const n of requests()) {
      expect(n).toBeGreaterThanOrEqual(rounds - 1);
      expect(n).toBeLessThanOrEqual(rounds);
    }
  });
});
