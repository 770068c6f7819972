import { afterEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { loggerOptions } from '../../shared/src/redact.js';
import { ScanFramer, stripAimPrefix, type DiscardReason, type ScanFramerOptions } from '@parcel-locker/hw-protocol';
import { createScanner, scannerConfigSchema, type ScannerReader } from '../../agent/src/hw/index.js';
import { startSimulator, type SimulatorHandle } from '../../sim/src/index.js';

const logger = pino(loggerOptions('test-scanner', process.env.LOG_LEVEL ?? 'silent'));

function framer(opts: Partial<ScanFramerOptions> = {}) {
  const scans: string[] = [];
  const discards: [DiscardReason, number][] = [];
  const f = new ScanFramer(
    { suffix: 'auto', interCharTimeoutMs: 50, maxLength: 16, stripAim: true, ...opts },
    { scan: (s) => scans.push(s), discard: (r, n) => discards.push([r, n]) },
  );
  const push = (s: string | number[]): void => f.push(typeof s === 'string' ? Buffer.from(s, 'latin1') : Buffer.from(s));
  return { f, push, scans, discards };
}

describe('scan framing', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ends scans at CR, LF and CR LF, without empty scans between CR and LF', () => {
    const { push, scans } = framer();
    push('AAA\rBBB\nCCC\r\nDDD\r\n\r\n');
    expect(scans).toEqual(['AAA', 'BBB', 'CCC', 'DDD']);
  });

  it('joins a scan split across chunks', () => {
    const { push, scans } = framer();
    push('12');
    push('34\r');
    push('\n5');
    push('6\n');
    expect(scans).toEqual(['1234', '56']);
  });

  it('strips an AIM symbology prefix, unless told not to', () => {
    expect(stripAimPrefix(']C1PKG-1')).toBe('PKG-1');
    expect(stripAimPrefix(']E04607001234567')).toBe('4607001234567');
    expect(stripAimPrefix(']d2010460')).toBe('010460');
    expect(stripAimPrefix('PKG]C1')).toBe('PKG]C1');
    const { push, scans } = framer();
    push(']C1ABC\r\n]E0123\r\n]C1\r\n');
    expect(scans).toEqual(['ABC', '123']);
    const raw = framer({ stripAim: false });
    raw.push(']C1ABC\r\n');
    expect(raw.scans).toEqual([']C1ABC']);
  });

  it('discards overlong input whole and reads the next scan normally', () => {
    const { push, scans, discards } = framer({ maxLength: 8 });
    push('123456789012\r\n12345678\r\n');
    expect(scans).toEqual(['12345678']);
    expect(discards).toEqual([['too_long', 12]]);
  });

  it('discards a line with non-printable bytes and keeps the scans around it', () => {
    const { push, scans, discards } = framer();
    push('OK1\r\n');
    push([0x00, 0x9f, 0x41, 0x1b, 0xff, 0x0d, 0x0a]);
    push('OK2\r\n');
    expect(scans).toEqual(['OK1', 'OK2']);
    expect(discards).toEqual([['garbage', 5]]);
  });

  it('with no suffix, a quiet line ends the scan', () => {
    vi.useFakeTimers();
    const { push, scans } = framer({ suffix: 'none' });
    push('ABC');
    vi.advanceTimersByTime(49);
    push('DEF');
    vi.advanceTimersByTime(49);
    expect(scans).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(scans).toEqual(['ABCDEF']);
    push(']C1XYZ');
    vi.advanceTimersByTime(50);
    expect(scans).toEqual(['ABCDEF', 'XYZ']);
  });

  it('with a suffix expected, an unfinished line that goes quiet is discarded', () => {
    vi.useFakeTimers();
    const { push, scans, discards } = framer({ suffix: 'auto' });
    push('PARTIAL');
    vi.advanceTimersByTime(50);
    push('WHOLE\r\n');
    expect(scans).toEqual(['WHOLE']);
    expect(discards).toEqual([['unterminated', 7]]);
  });
});

describe('scanner reader against the simulated scanner over TCP', () => {
  let sim: SimulatorHandle | undefined;
  let reader: ScannerReader | undefined;

  afterEach(async () => {
    await reader?.stop();
    await sim?.stop();
  });

  async function start(suffix: 'crlf' | 'cr' | 'lf' | 'none') {
    sim = await startSimulator({ buses: [{ boards: 1 }], scanner: { suffix, gapMs: 300 } });
    reader = createScanner(scannerConfigSchema.parse({ ...sim.scannerConfig(), interCharTimeoutMs: 30 }), logger);
    const scans: string[] = [];
    reader.on('scan', (s) => scans.push(s));
    await reader.start();
    return { sim, scans };
  }

  it('reads CR LF scans and ignores a garbage burst before each', async () => {
    const { sim, scans } = await start('crlf');
    await sim.scan('PKG-1');
    sim.setFault({ kind: 'scanner-garbage' });
    await sim.scan('PKG-2', { aimPrefix: ']C1' });
    sim.sendScannerGarbage();
    await sim.scan('PKG-3', { suffix: 'lf' });
    await expect.poll(() => scans.length).toBe(3);
    expect(scans).toEqual(['PKG-1', 'PKG-2', 'PKG-3']);
  });

  it('reads suffix-less scans by the inter-character timeout', async () => {
    const { sim, scans } = await start('none');
    expect(sim.scannerConfig().suffix).toBe('none');
    await sim.scan('4607001234567');
    await expect.poll(() => scans.length).toBe(1);
    sim.setFault({ kind: 'scanner-garbage' });
    await sim.scan('PKG-9');
    await expect.poll(() => scans.length).toBe(2);
    expect(scans).toEqual(['4607001234567', 'PKG-9']);
  });
});
