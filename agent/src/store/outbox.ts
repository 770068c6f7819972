/**
 * Events for the cloud, numbered `dseq`. Callers emit inside the transaction that records the
 * physical change, so an event never exists without its fact nor a fact without its event.
 */
import { eventBodySchema, eventSchema, type EventBody, type LockerEvent } from '../../../shared/src/protocol.js';
import { traceparentOf } from '../../../shared/src/tracing.js';
import type { Clock } from '../clock.js';
import type { Sqlite } from './database.js';
import type { Meta } from './meta.js';

export class Outbox {
  private readonly listeners = new Set<() => void>();
  private readonly watchers = new Set<(body: EventBody) => void>();

  constructor(
    private readonly db: Sqlite,
    private readonly meta: Meta,
    private readonly clock: Clock,
  ) {}

  /** Appends one event, with the traceparent of the active span when tracing is on; returns its dseq. */
  emit(body: EventBody): number {
    const parsed = eventBodySchema.parse(body);
    const traceparent = traceparentOf();
    const stored = traceparent === undefined ? parsed : { ...parsed, traceparent };
    const info = this.db.prepare('insert into outbox (at, body) values (?, ?)').run(this.clock.now(), JSON.stringify(stored));
    for (const watch of this.watchers) watch(parsed);
    // After the current synchronous transaction has finished: a reader then sees the row committed
    // (or finds nothing new if it rolled back).
    if (this.listeners.size > 0) setImmediate(() => this.listeners.forEach((fn) => fn()));
    return Number(info.lastInsertRowid);
  }

  /** Calls `fn` soon after events are appended (the locker link publishes at once); returns an unsubscribe. */
  onAppend(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Calls `fn` with every event as it is appended (the agent's vital signs count faults); returns an unsubscribe. */
  onEvent(fn: (body: EventBody) => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }

  /** Events with dseq above `dseq`, oldest first. */
  after(dseq: number, limit = 100): LockerEvent[] {
    const rows = this.db.prepare('select dseq, at, body from outbox where dseq > ? order by dseq limit ?').all(dseq, limit) as {
      dseq: number;
      at: number;
      body: string;
    }[];
    return rows.map((r) => eventSchema.parse({ dseq: r.dseq, at: r.at, ...(JSON.parse(r.body) as EventBody) }));
  }

  lastDseq(): number {
    const row = this.db.prepare("select seq from sqlite_sequence where name = 'outbox'").get() as { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  ackedDseq(): number {
    return this.meta.getNumber('acked_dseq');
  }

  /** Cumulative ack from the cloud; a lower or repeated ack changes nothing, one past the end is clamped. */
  markAcked(dseq: number): void {
    const next = Math.min(dseq, this.lastDseq());
    if (next > this.ackedDseq()) this.meta.setNumber('acked_dseq', next);
  }

  /**
   * Deletes events the cloud acknowledged that are older than `before`, at most `limit`; the count.
   * An unacked event is never touched, and numbering goes on (sqlite_sequence keeps the last dseq).
   */
  pruneAcked(before: number, limit: number): number {
    return this.db
      .prepare('delete from outbox where dseq in (select dseq from outbox where dseq <= ? and at < ? order by dseq limit ?)')
      .run(this.ackedDseq(), before, limit).changes;
  }

  /** Highest dseq ever handed to the broker. */
  sentDseq(): number {
    return this.meta.getNumber('sent_dseq');
  }

  /** Written before the publish, so that it never falls behind what left the locker. */
  markSent(dseq: number): void {
    if (dseq > this.sentDseq()) this.meta.setNumber('sent_dseq', dseq);
  }

  /**
   * The cloud has applied events up to `cloudAcked`, beyond anything this store ever sent: the
   * store was replaced or restored and lost events the cloud has. The events it never sent are
   * new facts whose numbers the cloud already used, so they move to follow the cloud's ack (in
   * their order), numbering continues after them, and everything up to the cloud's ack counts as
   * acked. Call inside a transaction. Returns the dseqs the moved events had and have now.
   */
  continueAbove(cloudAcked: number): { moved: number; from: number; to: number } {
    const sent = this.sentDseq();
    if (cloudAcked <= sent) throw new Error(`the cloud's ack ${cloudAcked} is not beyond the sent events (${sent})`);
    const shift = cloudAcked - sent;
    const last = this.lastDseq();
    // Two steps, so that no moved row meets a number still in use.
    const moved = this.db.prepare('update outbox set dseq = -(dseq + ?) where dseq > ?').run(shift, sent).changes;
    this.db.prepare('update outbox set dseq = -dseq where dseq < 0').run();
    const next = Math.max(last, sent) + shift;
    if (this.db.prepare("update sqlite_sequence set seq = ? where name = 'outbox'").run(next).changes === 0) {
      this.db.prepare("insert into sqlite_sequence (name, seq) values ('outbox', ?)").run(next);
    }
    this.meta.setNumber('acked_dseq', cloudAcked);
    this.meta.setNumber('sent_dseq', cloudAcked);
    return { moved, from: sent + 1, to: cloudAcked + 1 };
  }
}
