/**
 * Settings of the lock buses and the barcode scanner. The agent's config schema composes these.
 * Every timeout and retry states its range; values outside it are refused at start.
 */
import { z } from 'zod';
import { BOARD_FAMILIES, BoardFamily } from '../../../shared/src/enums.js';

export type Parity = 'none' | 'even' | 'odd' | 'mark' | 'space';
export type DataBits = 5 | 6 | 7 | 8;
export type StopBits = 1 | 1.5 | 2;

export interface FamilyDefaults {
  baudRate: number;
  dataBits: DataBits;
  parity: Parity;
  stopBits: StopBits;
  /** Locks on one board; also the largest lock number it accepts. */
  locksPerBoard: number;
  /** Board addresses the family can use (broadcast addresses excluded). */
  minAddress: number;
  maxAddress: number;
}

/** Framing and board sizes from docs/hardware.md. */
export const FAMILY_DEFAULTS: Record<BoardFamily, FamilyDefaults> = {
  [BoardFamily.KerongCu48]: { baudRate: 19200, dataBits: 8, parity: 'none', stopBits: 1, locksPerBoard: 48, minAddress: 0, maxAddress: 9 },
  [BoardFamily.KerongCu16]: { baudRate: 19200, dataBits: 8, parity: 'none', stopBits: 1, locksPerBoard: 16, minAddress: 0, maxAddress: 14 },
  [BoardFamily.Winnsen]: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1, locksPerBoard: 24, minAddress: 0, maxAddress: 255 },
  [BoardFamily.Generic24]: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1, locksPerBoard: 24, minAddress: 0, maxAddress: 255 },
};

/** A serial device path (`/dev/serial/by-id/...`, a pty) or `tcp://host:port`. */
export const portPathSchema = z
  .string()
  .min(1)
  .refine((p) => p.startsWith('/') || /^COM\d+$/i.test(p) || /^tcp:\/\/[^/:]+:\d{1,5}$/.test(p), {
    message: 'expected a device path (/dev/serial/by-id/...) or tcp://host:port',
  });

const dataBitsSchema = z.union([z.literal(5), z.literal(6), z.literal(7), z.literal(8)]);
const stopBitsSchema = z.union([z.literal(1), z.literal(1.5), z.literal(2)]);
const paritySchema = z.enum(['none', 'even', 'odd', 'mark', 'space']);

export const boardConfigSchema = z.object({
  /** DIP-switch address: CU48 0-9, CU16 0-14, Winnsen and generic boards 0-255. */
  address: z.number().int().min(0).max(255),
  /** `inverted` for boards wired with the other (NO/NC) hook switch: the status bit means unlocked. */
  polarity: z.enum(['normal', 'inverted']).default('normal'),
  /** Locks wired to this board; defaults to the family's board size (CU48 48, CU16 16, others 24). */
  locks: z.number().int().min(1).max(255).optional(),
});

/** Reconnection back-off of a transport (serial device that vanished, TCP bridge that dropped). */
const reconnectSchema = {
  /** First wait before reconnecting, ms; 50-60000, default 500. Doubles on each failure. */
  reconnectMinMs: z.number().int().min(50).max(60_000).default(500),
  /** Longest wait between reconnection attempts, ms; 100-600000, default 10000. */
  reconnectMaxMs: z.number().int().min(100).max(600_000).default(10_000),
};

export const busConfigSchema = z
  .object({
    /** Name the agent uses in cell addresses; unique per locker. */
    name: z.string().min(1).default('main'),
    path: portPathSchema,
    family: z.enum(BOARD_FAMILIES),
    /** Serial framing; defaults per family (CU48/CU16 19200 8N1, Winnsen/generic 9600 8N1). Ignored over tcp://. */
    baudRate: z.number().int().min(300).max(921_600).optional(),
    dataBits: dataBitsSchema.optional(),
    parity: paritySchema.optional(),
    stopBits: stopBitsSchema.optional(),
    /** How long to wait for a reply to one frame, ms; 20-5000, default 300. */
    frameTimeoutMs: z.number().int().min(20).max(5000).default(300),
    /** Resends of a frame that got no valid reply; 0-10, default 2 (three tries in all). */
    retries: z.number().int().min(0).max(10).default(2),
    /** Quiet time after a frame that has no reply (CU48 unlock) before the next frame, ms; 0-1000, default 20. */
    interFrameDelayMs: z.number().int().min(0).max(1000).default(20),
    /** Unlock pulses for one open before the cell is reported jammed; 1-10, default 3. */
    openAttempts: z.number().int().min(1).max(10).default(3),
    /** Wait after a pulse before the first status read, ms; 0-10000, default 200. */
    confirmDelayMs: z.number().int().min(0).max(10_000).default(200),
    /** Status reads after each pulse, confirmDelayMs apart, before pulsing again; 1-10, default 3. */
    confirmReads: z.number().int().min(1).max(10).default(3),
    ...reconnectSchema,
    boards: z.array(boardConfigSchema).min(1),
  })
  .superRefine((bus, ctx) => {
    const d = FAMILY_DEFAULTS[bus.family];
    const seen = new Set<number>();
    bus.boards.forEach((b, i) => {
      if (b.address < d.minAddress || b.address > d.maxAddress) {
        ctx.addIssue({ code: 'custom', path: ['boards', i, 'address'], message: `${bus.family} board addresses are ${d.minAddress}-${d.maxAddress}` });
      }
      if (b.locks !== undefined && b.locks > d.locksPerBoard && bus.family !== BoardFamily.Winnsen) {
        ctx.addIssue({ code: 'custom', path: ['boards', i, 'locks'], message: `${bus.family} boards have at most ${d.locksPerBoard} locks` });
      }
      if (seen.has(b.address)) {
        ctx.addIssue({ code: 'custom', path: ['boards', i, 'address'], message: `board address ${b.address} appears twice` });
      }
      seen.add(b.address);
    });
    if (bus.reconnectMaxMs < bus.reconnectMinMs) {
      ctx.addIssue({ code: 'custom', path: ['reconnectMaxMs'], message: 'must not be below reconnectMinMs' });
    }
  });

export type BusConfig = z.output<typeof busConfigSchema>;
export type BusConfigInput = z.input<typeof busConfigSchema>;
export type BoardConfig = z.output<typeof boardConfigSchema>;

export const scannerConfigSchema = z
  .object({
    path: portPathSchema,
    /** 9600 by default; Honeywell's RS-232 preset is 115200. Ignored over tcp://. */
    baudRate: z.number().int().min(300).max(921_600).default(9600),
    dataBits: dataBitsSchema.default(8),
    parity: paritySchema.default('none'),
    stopBits: stopBitsSchema.default(1),
    /** `auto`: a scan ends at CR, LF or CR LF; `none`: a scan ends when the line goes quiet. */
    suffix: z.enum(['auto', 'none']).default('auto'),
    /**
     * Silence that ends a scan when suffix is `none`, or discards an unfinished line when it is
     * `auto`, ms; 5-2000, default 50.
     */
    interCharTimeoutMs: z.number().int().min(5).max(2000).default(50),
    /** Longest scan accepted, characters; 1-4096, default 128. Longer input is discarded whole. */
    maxLength: z.number().int().min(1).max(4096).default(128),
    /** Remove an AIM symbology identifier (`]C1`, `]E0`, ...) from the start of a scan. */
    stripAim: z.boolean().default(true),
    ...reconnectSchema,
  })
  .superRefine((s, ctx) => {
    if (s.reconnectMaxMs < s.reconnectMinMs) {
      ctx.addIssue({ code: 'custom', path: ['reconnectMaxMs'], message: 'must not be below reconnectMinMs' });
    }
  });

export type ScannerConfig = z.output<typeof scannerConfigSchema>;
export type ScannerConfigInput = z.input<typeof scannerConfigSchema>;

export interface SerialFraming {
  baudRate: number;
  dataBits: DataBits;
  parity: Parity;
  stopBits: StopBits;
}

/** The bus's serial framing with the family's defaults filled in. */
export function busFraming(bus: BusConfig): SerialFraming {
  const d = FAMILY_DEFAULTS[bus.family];
  return {
    baudRate: bus.baudRate ?? d.baudRate,
    dataBits: bus.dataBits ?? d.dataBits,
    parity: bus.parity ?? d.parity,
    stopBits: bus.stopBits ?? d.stopBits,
  };
}

/** Locks wired to a board: its own setting or the family's board size. */
export function boardLockCount(family: BoardFamily, board: BoardConfig): number {
  return board.locks ?? FAMILY_DEFAULTS[family].locksPerBoard;
}
