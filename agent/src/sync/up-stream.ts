/**
 * The up stream at the agent: the outbox's events after the cloud's ack, in dseq order, in
 * batches of `batchSize`, at most `windowSize` unacked. The outbox is the only record: the cursor
 * kept here only says how far this connection has sent, and falls back to the ack on every
 * connect and when no ack advanced for `resendAfterMs`.
 */
import type { Logger } from 'pino';
import type { LockerEvent } from '../../../shared/src/protocol.js';
import type { Clock } from '../clock.js';
import type { LockerStore } from '../store/index.js';
import type { Timers } from './timers.js';

export interface UpStreamOptions {
  batchSize: number;
  windowSize: number;
  resendAfterMs: number;
}

export class UpStream {
  #connected = false;
  /** Highest dseq handed to the broker on this connection. */
  #sentUpTo = 0;
  /** When the events in flight were sent from the ack, or the ack last advanced. */
  #progressAt = 0;
  #timer: unknown;
  #warnedAhead = false;

  constructor(
    private readonly store: LockerStore,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly opts: UpStreamOptions,
    /** Publishes one `events` message; false when the connection cannot take it now. */
    private readonly send: (items: LockerEvent[]) => boolean,
    private readonly logger: Logger,
  ) {}

  /** A new connection said hello: everything after the ack goes out again. */
  connected(): void {
    this.#connected = true;
    this.#sentUpTo = this.store.ackedDseq();
    this.#warnedAhead = false;
    this.pump();
  }

  lost(): void {
    this.#connected = false;
    this.#disarm();
  }

  /** The cloud's cumulative ack. */
  acked(dseq: number): void {
    const before = this.store.ackedDseq();
    this.store.markAcked(dseq);
    const after = this.store.ackedDseq();
    if (after > before) this.#progressAt = this.clock.now();
    if (dseq > after && !this.#warnedAhead) {
      this.#warnedAhead = true;
      // The cloud has applied events this store never wrote: the local state was lost or restored.
      this.logger.error({ cloudAckedDseq: dseq, lastDseq: this.store.outbox.lastDseq() }, 'the cloud acks events beyond the outbox');
    }
    this.#sentUpTo = Math.max(this.#sentUpTo, after);
    this.pump();
  }

  /** Sends what the window allows; called on connect, on every ack and when the outbox grows. */
  pump(): void {
    if (!this.#connected) return;
    for (;;) {
      const acked = this.store.ackedDseq();
      const from = Math.max(this.#sentUpTo, acked);
      const room = acked + this.opts.windowSize - from;
      if (room <= 0) break;
      const events = this.store.eventsAfter(from, Math.min(this.opts.batchSize, room));
      const last = events.at(-1);
      if (!last) break;
      if (!this.send(events)) break;
      // Nothing was in flight: the wait for an ack starts now.
      if (from === acked) this.#progressAt = this.clock.now();
      this.#sentUpTo = last.dseq;
    }
    this.#arm();
  }

  stop(): void {
    this.lost();
  }

  #arm(): void {
    if (this.#timer !== undefined || !this.#connected || this.#sentUpTo <= this.store.ackedDseq()) return;
    const wait = Math.max(0, this.#progressAt + this.opts.resendAfterMs - this.clock.now());
    this.#timer = this.timers.setTimeout(() => {
      this.#timer = undefined;
      this.#resendIfStalled();
    }, wait);
  }

  #disarm(): void {
    if (this.#timer === undefined) return;
    this.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #resendIfStalled(): void {
    if (!this.#connected) return;
    const acked = this.store.ackedDseq();
    if (this.#sentUpTo > acked && this.clock.now() - this.#progressAt >= this.opts.resendAfterMs) {
      this.logger.info({ from: acked + 1, to: this.#sentUpTo }, 'events not acked in time; sending them again');
      this.#sentUpTo = acked;
    }
    this.pump();
  }
}
