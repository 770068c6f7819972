import { describe, expect, it } from 'vitest';
import { busConfigSchema, busFraming, scannerConfigSchema, boardLockCount } from '../../agent/src/hw/index.js';

describe('hardware settings', () => {
  it('fills family defaults: framing, timeouts, polarity, board size', () => {
    const cu48 = busConfigSchema.parse({ path: '/dev/serial/by-id/usb-FTDI-if00', family: 'kerong-cu48', boards: [{ address: 0 }] });
    expect(cu48).toMatchObject({ name: 'main', frameTimeoutMs: 300, retries: 2, openAttempts: 3, confirmReads: 3, boards: [{ address: 0, polarity: 'normal' }] });
    expect(busFraming(cu48)).toEqual({ baudRate: 19200, dataBits: 8, parity: 'none', stopBits: 1 });
    expect(boardLockCount(cu48.family, cu48.boards[0]!)).toBe(48);
    const generic = busConfigSchema.parse({ path: 'tcp://10.0.0.5:4001', family: 'generic-24', baudRate: 19200, boards: [{ address: 1, locks: 12 }] });
    expect(busFraming(generic)).toEqual({ baudRate: 19200, dataBits: 8, parity: 'none', stopBits: 1 });
    expect(boardLockCount(generic.family, generic.boards[0]!)).toBe(12);
    expect(busFraming(busConfigSchema.parse({ path: 'tcp://h:1', family: 'winnsen', boards: [{ address: 3 }] })).baudRate).toBe(9600);
  });

  it('refuses addresses outside the family, duplicate boards, oversize boards and bad paths', () => {
    const bad = (input: object): string => {
      const r = busConfigSchema.safeParse(input);
      expect(r.success).toBe(false);
      return r.success ? '' : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    };
    expect(bad({ path: '/dev/x', family: 'kerong-cu48', boards: [{ address: 10 }] })).toMatch(/boards.0.address: .*0-9/);
    expect(bad({ path: '/dev/x', family: 'kerong-cu16', boards: [{ address: 15 }] })).toMatch(/0-14/);
    expect(bad({ path: '/dev/x', family: 'kerong-cu16', boards: [{ address: 1 }, { address: 1 }] })).toMatch(/twice/);
    expect(bad({ path: '/dev/x', family: 'kerong-cu16', boards: [{ address: 1, locks: 20 }] })).toMatch(/at most 16/);
    expect(bad({ path: 'ttyUSB0', family: 'kerong-cu48', boards: [{ address: 0 }] })).toMatch(/path/);
    expect(bad({ path: 'tcp://host', family: 'kerong-cu48', boards: [{ address: 0 }] })).toMatch(/path/);
    expect(bad({ path: '/dev/x', family: 'kerong-cu48', boards: [] })).toMatch(/boards/);
    expect(bad({ path: '/dev/x', family: 'kerong-cu48', frameTimeoutMs: 5, boards: [{ address: 0 }] })).toMatch(/frameTimeoutMs/);
    expect(bad({ path: '/dev/x', family: 'kerong-cu48', retries: 11, boards: [{ address: 0 }] })).toMatch(/retries/);
    expect(bad({ path: '/dev/x', family: 'kerong-cu48', reconnectMinMs: 5000, reconnectMaxMs: 1000, boards: [{ address: 0 }] })).toMatch(/reconnectMaxMs/);
  });

  it('scanner defaults and limits', () => {
    expect(scannerConfigSchema.parse({ path: '/dev/serial/by-id/usb-Honeywell' })).toMatchObject({
      baudRate: 9600,
      suffix: 'auto',
      interCharTimeoutMs: 50,
      maxLength: 128,
      stripAim: true,
    });
    expect(scannerConfigSchema.safeParse({ path: '/dev/x', maxLength: 0 }).success).toBe(false);
    expect(scannerConfigSchema.safeParse({ path: '/dev/x', suffix: 'cr' }).success).toBe(false);
  });
});
