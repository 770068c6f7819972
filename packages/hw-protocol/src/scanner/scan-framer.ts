/**
 * Cuts a scanner's byte stream into scans. A scan ends at CR, LF or CR LF; with no suffix
 * configured, a quiet line ends it too. Input longer than the maximum and input carrying
 * non-printable bytes are discarded whole, so garbage never reaches the flows as a barcode.
 */

export interface ScanFramerOptions {
  suffix: 'auto' | 'none';
  interCharTimeoutMs: number;
  maxLength: number;
  stripAim: boolean;
}

export type DiscardReason = 'too_long' | 'garbage' | 'unterminated';

export interface ScanFramerEvents {
  scan(barcode: string): void;
  discard(reason: DiscardReason, length: number): void;
}

const CR = 0x0d;
const LF = 0x0a;
/** `]` + symbology letter + modifier character. */
const AIM_PREFIX = /^\][A-Za-z][0-9A-Za-z]/;

export function stripAimPrefix(scan: string): string {
  return scan.replace(AIM_PREFIX, '');
}

export class ScanFramer {
  private chars: number[] = [];
  private length = 0;
  private overflow = false;
  private garbage = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: ScanFramerOptions,
    private readonly events: ScanFramerEvents,
  ) {}

  push(chunk: Uint8Array): void {
    for (const byte of chunk) {
      if (byte === CR || byte === LF) {
        this.end(false);
        continue;
      }
      this.length += 1;
      if (byte < 0x20 || byte > 0x7e) this.garbage = true;
      if (this.length > this.options.maxLength) this.overflow = true;
      if (!this.overflow) this.chars.push(byte);
    }
    this.arm();
  }

  /** Drops a partial scan and the timer (on stop). */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.reset();
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.length === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.end(true);
    }, this.options.interCharTimeoutMs);
  }

  private end(byTimeout: boolean): void {
    const { length, overflow, garbage } = this;
    const text = String.fromCharCode(...this.chars);
    this.reset();
    if (length === 0) return;
    if (overflow) return this.events.discard('too_long', length);
    if (garbage) return this.events.discard('garbage', length);
    if (byTimeout && this.options.suffix === 'auto') return this.events.discard('unterminated', length);
    const barcode = this.options.stripAim ? stripAimPrefix(text) : text;
    if (barcode.length > 0) this.events.scan(barcode);
  }

  private reset(): void {
    this.chars = [];
    this.length = 0;
    this.overflow = false;
    this.garbage = false;
  }
}
