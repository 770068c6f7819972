/** A serial barcode scanner: ASCII scans with a configurable suffix and AIM prefix, and a garbage fault. */
import { EventEmitter } from 'node:events';
import { encodeScan, SCAN_SUFFIX_BYTES, type ScanSuffix } from '@parcel-locker/hw-protocol';
import type { Random } from './random.js';

export type { ScanSuffix } from '@parcel-locker/hw-protocol';

export interface SimScannerOptions {
  suffix: ScanSuffix;
  /** AIM symbology identifier sent before every scan (`]C1`), or none. */
  aimPrefix?: string;
  /** Pause between a garbage burst and the scan after it, so a suffix-less reader can tell them apart, ms. */
  gapMs: number;
  random: Random;
}

export interface ScanOptions {
  suffix?: ScanSuffix;
  aimPrefix?: string;
}

export class SimulatedScanner extends EventEmitter<{ output: [Buffer] }> {
  /** Fault: a burst of non-printable bytes goes out before every scan. */
  garbage = false;
  scans = 0;

  constructor(private readonly options: SimScannerOptions) {
    super();
  }

  /** A scanner ignores what the host sends. */
  input(_chunk: Buffer): void {}

  get suffix(): ScanSuffix {
    return this.options.suffix;
  }

  async scan(barcode: string, opts: ScanOptions = {}): Promise<void> {
    if (!/^[\x20-\x7e]+$/.test(barcode)) throw new RangeError('a barcode is printable ASCII');
    if (this.garbage) {
      this.sendGarbage(opts.suffix);
      await new Promise((res) => setTimeout(res, this.options.gapMs));
    }
    const aim = opts.aimPrefix ?? this.options.aimPrefix ?? '';
    this.scans += 1;
    this.emit('output', encodeScan(barcode, opts.suffix ?? this.options.suffix, aim));
  }

  /** Bytes a misconfigured or failing scanner sends: control characters and high bytes. */
  sendGarbage(suffix?: ScanSuffix, count = 12): void {
    const bytes = Array.from({ length: count }, () => {
      const r = Math.floor(this.options.random() * 160);
      // 0x00-0x1F without CR and LF, then 0x80-0xFF.
      const b = r < 32 ? r : 0x80 + (r - 32);
      return b === 0x0d || b === 0x0a ? 0x07 : b;
    });
    this.emit('output', Buffer.concat([Buffer.from(bytes), Buffer.from(SCAN_SUFFIX_BYTES[suffix ?? this.options.suffix], 'latin1')]));
  }

  state(): { suffix: ScanSuffix; aimPrefix: string | null; garbage: boolean; scans: number } {
    return { suffix: this.options.suffix, aimPrefix: this.options.aimPrefix ?? null, garbage: this.garbage, scans: this.scans };
  }
}
