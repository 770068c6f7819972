/**
 * The same driver through the real serialport stack: the simulator's bus and scanner behind
 * pseudo-terminals (socat), opened as serial device paths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loggerOptions } from '../../shared/src/redact.js';
import { requires } from '../helpers/requirements.js';
import {
  busConfigSchema,
  createLockHardware,
  createScanner,
  scannerConfigSchema,
  type LockHardware,
  type ScannerReader,
} from '../../agent/src/hw/index.js';
import { startSimulator, type SimulatorHandle } from '../../sim/src/index.js';
import { readWhenBack } from './support.js';

const logger = pino(loggerOptions('test-hw-pty', process.env.LOG_LEVEL ?? 'silent'));

describe.runIf(requires('socat'))('LockController and scanner over a pseudo-terminal (serialport)', () => {
  let sim: SimulatorHandle;
  let hw: LockHardware;
  let scanner: ScannerReader;
  const scans: string[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ buses: [{ name: 'main', family: 'kerong-cu16', boards: 2, pty: true }], scanner: { pty: true, suffix: 'cr' } });
    const bus = busConfigSchema.parse({ ...sim.busConfig('main', 'pty'), frameTimeoutMs: 300, confirmDelayMs: 5, reconnectMinMs: 50 });
    expect(bus.path.startsWith('/')).toBe(true);
    hw = createLockHardware([bus], logger);
    await hw.start();
    scanner = createScanner(scannerConfigSchema.parse(sim.scannerConfig('pty')), logger);
    scanner.on('scan', (s) => scans.push(s));
    await scanner.start();
  });

  afterAll(async () => {
    await scanner?.stop();
    await hw?.stop();
    await sim?.stop();
  });

  it('reads both CU16 boards, opens a lock and sees the item sensor', async () => {
    const all = await hw.readAll();
    expect(all.offline).toEqual([]);
    expect(all.doors).toHaveLength(32);
    expect(await hw.open({ bus: 'main', board: 1, lock: 16 })).toMatchObject({ ok: true });
    sim.putItem({ board: 1, lock: 16 });
    const status = await hw.readBoardStatus('main', 1);
    expect(status.closed.get(16)).toBe(false);
    expect(status.items?.get(16)).toBe(true);
    expect(status.items?.get(15)).toBe(false);
  });

  it('receives scans through the serial stack', async () => {
    await sim.scan('PKG-000123');
    await sim.scan('4607001234567', { aimPrefix: ']E0' });
    await expect.poll(() => scans.length).toBe(2);
    expect(scans).toEqual(['PKG-000123', '4607001234567']);
  });

  // readWhenBack follows the reconnection (each failed read returns at once); its bound only
  // reports a hang. A write cut off by the device vanishing used to hang the bus for good.
  it('reopens the device after it vanished (socat restarted behind the pty)', { timeout: 120_000 }, async () => {
    sim.dropConnections();
    const doors = await readWhenBack(hw, 'main', 0, 100_000);
    expect(doors?.size).toBe(16);
  });

  it('keeps answering when the device vanishes in the middle of traffic', { timeout: 240_000 }, async () => {
    for (let round = 0; round < 5; round++) {
      // Frames in flight on both boards while the pty goes away under them.
      let traffic = true;
      const reads = (async () => {
        while (traffic) {
          await hw.readBoard('main', round % 2).catch(() => undefined);
          // A read refused at once (port closed) settles in a microtask: yield to the event loop.
          await new Promise((r) => setImmediate(r));
        }
      })();
      await hw.readBoard('main', 0).catch(() => undefined);
      sim.dropConnections();
      const doors = await readWhenBack(hw, 'main', 1, 100_000);
      traffic = false;
      await reads;
      expect(doors?.size, `round ${round}`).toBe(16);
    }
  });
});
