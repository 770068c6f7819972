/**
 * A byte rate for what one client sends, which aedes does not have: a token bucket per connection
 * (`burstBytes` deep, refilled at `bytesPerSecond`) counted on every chunk the client's MQTT parser
 * gets; when it runs dry the broker stops reading that socket until the bucket is back above zero,
 * so the client's own TCP window closes and its publishes wait (nothing is dropped or refused). A
 * locker that keeps sending messages just under the packet limit then costs the broker and the
 * cloud no more than `bytesPerSecond`. Like ./packet-size-guard.ts it hooks internals of aedes's
 * Client (the parser and the read batch counter); test/broker/client-limits.test.ts holds it to
 * the installed version.
 */
import type { Client } from 'aedes';

interface ReadingClient {
  closed: boolean;
  _parser?: { parse(buf: Buffer): unknown };
  /** Packets being handled; aedes reads the socket again when it is back at zero. */
  _parsingBatch: number;
  _nextBatch?: () => void;
}

/** Far above the packets a client can have in hand, so that no completion reads while waiting. */
const HOLD = 1_000_000_000;

export interface RateOptions {
  bytesPerSecond: number;
  burstBytes: number;
  now?: () => number;
  /** Whether this client is bounded (the cloud's own connection is not). */
  applies: (client: Client) => boolean;
  onThrottled?: (client: Client, waitMs: number) => void;
}

export function limitInboundRate(client: Client, opts: RateOptions): void {
  const c = client as unknown as ReadingClient;
  const parser = c._parser;
  if (typeof parser?.parse !== 'function' || typeof c._nextBatch !== 'function' || typeof c._parsingBatch !== 'number') {
    throw new Error('aedes client has no parser or read batch to throttle: check the aedes version');
  }
  const now = opts.now ?? (() => performance.now());
  const parse = parser.parse.bind(parser);
  let tokens = opts.burstBytes;
  let at = now();
  let waiting = false;
  parser.parse = (buf: Buffer) => {
    const result = parse(buf);
    if (waiting || !opts.applies(client)) return result;
    const t = now();
    tokens = Math.min(opts.burstBytes, tokens + ((t - at) / 1000) * opts.bytesPerSecond) - buf.length;
    at = t;
    if (tokens >= 0) return result;
    const waitMs = Math.ceil((-tokens / opts.bytesPerSecond) * 1000);
    waiting = true;
    c._parsingBatch += HOLD;
    opts.onThrottled?.(client, waitMs);
    setTimeout(() => {
      waiting = false;
      c._parsingBatch -= HOLD;
      if (c.closed || c._parsingBatch > 0) return;
      // As a 'readable' event would: nextBatch counts down to zero and reads what has arrived.
      c._parsingBatch = 1;
      c._nextBatch!();
    }, waitMs).unref();
    return result;
  };
}
