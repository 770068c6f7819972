/**
 * A streaming decoder shared by every board family. The family supplies a parser that looks at the
 * buffer from a candidate start byte; the decoder keeps partial frames between chunks and resyncs
 * one byte at a time after noise or a frame that fails its check, so a corrupted frame never hides
 * a good one that follows it.
 */

export type ParseResult<F> =
  /** A whole valid frame of `length` bytes starts here. */
  | { kind: 'frame'; frame: F; length: number }
  /** A frame may start here but more bytes are needed to tell. */
  | { kind: 'more' }
  /** A frame of `length` bytes starts here but its checksum or end byte is wrong. */
  | { kind: 'bad'; length: number; reason: string }
  /** No frame starts at this byte. */
  | { kind: 'skip' };

export type FrameParser<F> = (buf: Buffer) => ParseResult<F>;

export type DecodeEvent<F> =
  | { type: 'frame'; frame: F; bytes: Buffer }
  | { type: 'bad'; bytes: Buffer; reason: string }
  | { type: 'noise'; bytes: Buffer };

export class FrameDecoder<F> {
  private buf: Buffer = Buffer.alloc(0);

  constructor(private readonly parse: FrameParser<F>) {}

  /** Feeds received bytes; returns what they completed, in order. */
  push(chunk: Uint8Array): DecodeEvent<F>[] {
    this.buf = this.buf.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buf, chunk]);
    const events: DecodeEvent<F>[] = [];
    let noiseStart = -1;
    let pos = 0;
    const flushNoise = (end: number): void => {
      if (noiseStart >= 0) {
        events.push({ type: 'noise', bytes: Buffer.from(this.buf.subarray(noiseStart, end)) });
        noiseStart = -1;
      }
    };
    while (pos < this.buf.length) {
      const r = this.parse(this.buf.subarray(pos));
      if (r.kind === 'more') break;
      if (r.kind === 'frame') {
        flushNoise(pos);
        events.push({ type: 'frame', frame: r.frame, bytes: Buffer.from(this.buf.subarray(pos, pos + r.length)) });
        pos += r.length;
        continue;
      }
      if (r.kind === 'bad') {
        flushNoise(pos);
        events.push({ type: 'bad', bytes: Buffer.from(this.buf.subarray(pos, pos + r.length)), reason: r.reason });
      } else if (noiseStart < 0) {
        noiseStart = pos;
      }
      pos += 1;
    }
    flushNoise(pos);
    this.buf = Buffer.from(this.buf.subarray(pos));
    return events;
  }

  /** Drops a partial frame (after a timeout, so stale bytes cannot swallow the next reply). */
  reset(): void {
    this.buf = Buffer.alloc(0);
  }

  get pending(): number {
    return this.buf.length;
  }
}
