/**
 * The up stream at the agent: the outbox's events after the cloud's ack, in dseq order, in
 * batches of `batchSize`, at most `windowSize` unacked. The outbox is the only record: the cursor
 * kept here only says how far this connection has sent, and falls back to the ack on every
 * connect and when no ack advanced for `resendAfterMs`.
 *
 * On every connection the events wait for the cloud's answer to the hello (an ack naming this
 * connection; the hello is said again until it comes): an ack beyond anything this store ever
 * sent shows a store that was replaced or restored, whose unsent events would otherwise reuse
 * numbers the cloud has applied (and be skipped as duplicates). They are renumbered after the
 * cloud's ack before anything is sent.
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
  /** The cloud answered this connection's hello (an ack naming its counter arrived). */
  #positioned = false;
  /** Highest dseq handed to the broker on this connection. */
  #sentUpTo = 0;
  /** When the events in flight were sent from the ack, or the ack last advanced. */
  #progressAt = 0;
  #timer: unknown;

  constructor(
    private readonly store: LockerStore,
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly opts: UpStreamOptions,
    /** Publishes one `events` message; false when the connection cannot take it now. */
    private readonly send: (items: LockerEvent[]) => boolean,
    private readonly logger: Logger,
    /** Says hello again (the hello or its ack was lost: the events are still waiting for it). */
    private readonly greet: () => void,
  ) {}

  /** Connected, and the cloud answered this connection's hello. */
  get positioned(): boolean {
    return this.#connected && this.#positioned;
  }

  /** A new connection said hello: once the cloud acks, everything after its ack goes out again. */
  connected(): void {
    this.#connected = true;
    this.#positioned = false;
    this.#sentUpTo = this.store.ackedDseq();
    this.#progressAt = this.clock.now();
    this.#arm();
  }

  lost(): void {
    this.#connected = false;
    this.#disarm();
  }

  /**
   * The cloud's cumulative ack. `answersHello`: it names this connection, so the cloud has this
   * connection's hello (and will push commands to it); only such an ack lets the events go.
   */
  acked(dseq: number, answersHello: boolean): void {
    const before = this.store.ackedDseq();
    if (dseq > this.store.sentDseq()) {
      // The cloud has applied events this store never sent: the local state was replaced or
      // restored. What it recorded since are new facts under numbers the cloud has used.
      const moved = this.store.continueAbove(dseq);
      this.logger.error(
        { cloudAckedDseq: dseq, moved: moved.moved, from: moved.from, to: moved.to },
        'the cloud has applied events this store never sent (replaced or restored store); its unsent events follow the cloud ack',
      );
      this.#sentUpTo = dseq;
    } else {
      this.store.markAcked(dseq);
    }
    const after = this.store.ackedDseq();
    if (after > before || (answersHello && !this.#positioned)) this.#progressAt = this.clock.now();
    if (answersHello) this.#positioned = true;
    else if (!this.#positioned && this.#connected) {
      // The cloud speaks to this connection without having had its hello (it subscribed after the
      // hello went out, and asks with an ack naming an earlier connection): say it again now.
      this.#progressAt = this.clock.now();
      this.greet();
    }
    this.#sentUpTo = Math.max(this.#sentUpTo, after);
    this.pump();
  }

  /** Sends what the window allows; called on connect, on every ack and when the outbox grows. */
  pump(): void {
    if (!this.#connected || !this.#positioned) return;
    for (;;) {
      const acked = this.store.ackedDseq();
      const from = Math.max(this.#sentUpTo, acked);
      const room = acked + this.opts.windowSize - from;
      if (room <= 0) break;
      const events = this.store.eventsAfter(from, Math.min(this.opts.batchSize, room));
      const last = events.at(-1);
      if (!last) break;
      this.store.markSent(last.dseq);
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
    if (this.#timer !== undefined || !this.#connected) return;
    if (this.#positioned && this.#sentUpTo <= this.store.ackedDseq()) return;
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
    if (!this.#positioned) {
      if (this.clock.now() - this.#progressAt >= this.opts.resendAfterMs) {
        this.logger.info('no ack since the hello; saying hello again');
        this.#progressAt = this.clock.now();
        this.greet();
      }
      this.#arm();
      return;
    }
    const acked = this.store.ackedDseq();
    if (this.#sentUpTo > acked && this.clock.now() - this.#progressAt >= this.opts.resendAfterMs) {
      this.logger.info({ from: acked + 1, to: this.#sentUpTo }, 'events not acked in time; sending them again');
      this.#sentUpTo = acked;
    }
    this.pump();
  }
}
