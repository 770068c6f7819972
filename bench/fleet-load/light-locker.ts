/**
 * A locker without hardware or SQLite: its end of the link (docs/mqtt-interface.md) with its
 * state in memory, so that one process can play thousands of them against a real cloud. On
 * every connection, as the agent: a new `conn` in the will, SUBSCRIBE down and its own presence,
 * the retained birth, `hello`; commands applied in cseq order once (duplicates skipped, a gap
 * stops the batch) and acked; snapshots; events sent after the cloud's answer to the hello,
 * resent from the ack when it stalls; the hello said again when no answer comes; reconnection
 * with the agent's own back-off (doubling, with jitter). What it received and applied is counted,
 * so that a run can check "each command applied once" at the lockers.
 */
import { Backoff } from '../../agent/src/sync/backoff.js';
import { COMMAND_TYPES, PROTOCOL_VERSION, type Command, type EventBody, type LockerEvent, type OrderIntent, type Snapshot, type UpdateOffer, type UpdateReport, type UpdateState } from '../../shared/src/protocol.js';
import { topics } from '../../shared/src/topics.js';
import { MqttWire } from './mqtt-wire.js';

export interface LightLockerOptions {
  host: string;
  port: number;
  keepaliveSec: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** Hello again, or events again from the ack, after this long without an answer. */
  resendAfterMs: number;
  connectTimeoutMs: number;
  random: () => number;
  /**
   * The agent version it runs: set, its hello says it installs releases and it answers an update
   * offer with the reports the real agent sends at each step (agent/src/updates/updater.ts),
   * without downloading the artifact, then runs the offered version.
   */
  agentVersion?: string;
}

/** What a locker counts (summed over a fleet by LightFleet.stats()). */
export interface LockerCounters {
  /** Connection attempts (CONNECT sent). */
  attempts: number;
  /** Connections that reached hello. */
  connects: number;
  /** Attempts given up without a CONNACK within the connect timeout. */
  timeouts: number;
  /** CONNACK refusals and refused subscriptions. */
  refused: number;
  /** Commands applied (each cseq once). */
  applied: number;
  /** Commands received again after they were applied (resends; skipped). */
  duplicates: number;
  /** Batches stopped at a missing cseq. */
  gaps: number;
  snapshots: number;
  /** Commands dropped while deaf (see LightLocker.deaf). */
  dropped: number;
  /** Events the cloud acked. */
  eventsAcked: number;
  /** Update offers answered, and releases installed (confirmed). */
  offers: number;
  installed: number;
}

interface HeldOrder {
  upserts: number;
  intent: OrderIntent;
}

export const newCounters = (): LockerCounters => ({ attempts: 0, connects: 0, timeouts: 0, refused: 0, applied: 0, duplicates: 0, gaps: 0, snapshots: 0, dropped: 0, eventsAcked: 0, offers: 0, installed: 0 });

export class LightLocker {
  readonly id: string;
  readonly counters = newCounters();
  readonly #password: string;
  readonly #opts: LightLockerOptions;
  readonly #backoff: Backoff;
  readonly #topics: { up: string; down: string; presence: string };
  #wire: MqttWire | undefined;
  #running = false;
  #retry: NodeJS.Timeout | undefined;
  /** CONNECT sent at (ms); undefined once CONNACK came. */
  #connectingSince: number | undefined;
  #ready = false;
  #conn = 0;
  /** The cloud answered this connection's hello (an ack naming its conn). */
  #positioned = false;
  #helloAt = 0;
  #appliedCseq = 0;
  #ackedDseq = 0;
  #lastDseq = 0;
  #sentUpTo = 0;
  #progressAt = 0;
  #outbox: LockerEvent[] = [];
  readonly #orders = new Map<string, HeldOrder>();
  readonly #grants = new Set<string>();
  /** While true, arriving commands and snapshots are dropped unacked, as if lost on the way. */
  deaf = false;
  #agentVersion: string | undefined;
  #lastReport: UpdateReport | undefined;

  constructor(id: number, password: string, opts: LightLockerOptions) {
    this.id = String(id);
    this.#password = password;
    this.#opts = opts;
    this.#agentVersion = opts.agentVersion;
    this.#backoff = new Backoff(opts.reconnectMinMs, opts.reconnectMaxMs, opts.random);
    this.#topics = { up: topics.up(this.id), down: topics.down(this.id), presence: topics.presence(this.id) };
  }

  /** Connected, subscribed, and the cloud has answered this connection's hello. */
  get online(): boolean {
    return this.#ready && this.#positioned;
  }

  get appliedCseq(): number {
    return this.#appliedCseq;
  }

  /** Events recorded and not yet acked by the cloud. */
  get unacked(): number {
    return this.#outbox.length;
  }

  /** How many times each order's `order.upsert` was applied. */
  upsertsOf(orderId: string): number {
    return this.#orders.get(orderId)?.upserts ?? 0;
  }

  orders(): OrderIntent[] {
    return [...this.#orders.values()].map((o) => o.intent);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#connect();
  }

  /** A planned stop: offline presence, DISCONNECT. */
  stop(): void {
    this.#running = false;
    clearTimeout(this.#retry);
    const wire = this.#wire;
    this.#wire = undefined;
    if (wire && this.#ready) {
      wire.publish(this.#topics.presence, this.#presence(false), true);
      wire.disconnect();
    } else wire?.destroy();
    this.#ready = false;
  }

  /** The connection is lost (the broker publishes the will); reconnects with back-off. */
  cut(): void {
    this.#wire?.destroy();
  }

  /** A fact happened: it gets the next dseq and goes out when the link allows. */
  record(body: EventBody): void {
    this.#outbox.push({ dseq: ++this.#lastDseq, at: Date.now(), ...body });
    this.#pump();
  }

  /** Called by the fleet's sweep: keep-alive, a silent or hung connection, hello and event resends. */
  tick(now: number): void {
    const wire = this.#wire;
    if (!wire) return;
    if (this.#connectingSince !== undefined) {
      if (now - this.#connectingSince > this.#opts.connectTimeoutMs) {
        this.counters.timeouts++;
        wire.destroy();
      }
      return;
    }
    if (now - wire.lastHeardAt > this.#opts.keepaliveSec * 1500) {
      wire.destroy();
      return;
    }
    if (now - wire.lastHeardAt > (this.#opts.keepaliveSec * 1000) / 2) wire.ping();
    if (!this.#ready) return;
    if (!this.#positioned) {
      if (now - this.#helloAt >= this.#opts.resendAfterMs) this.#hello();
      return;
    }
    if (this.#sentUpTo > this.#ackedDseq && now - this.#progressAt >= this.#opts.resendAfterMs) {
      this.#sentUpTo = this.#ackedDseq;
      this.#pump();
    }
  }

  // --- connection ------------------------------------------------------------------------------

  #connect(): void {
    if (!this.#running) return;
    this.#conn++;
    this.counters.attempts++;
    this.#connectingSince = Date.now();
    const wire: MqttWire = new MqttWire(
      {
        host: this.#opts.host,
        port: this.#opts.port,
        clientId: this.id,
        password: this.#password,
        keepaliveSec: this.#opts.keepaliveSec,
        will: { topic: this.#topics.presence, payload: this.#presence(false) },
      },
      {
        onConnack: (code) => {
          if (this.#wire !== wire) return;
          this.#connectingSince = undefined;
          if (code !== 0) {
            this.counters.refused++;
            wire.destroy();
            return;
          }
          wire.subscribe([this.#topics.down, this.#topics.presence]);
        },
        onSuback: (granted) => {
          if (this.#wire !== wire) return;
          if (granted.some((g) => g === 128)) {
            this.counters.refused++;
            wire.destroy();
            return;
          }
          this.#onReady(wire);
        },
        onPublish: (topic, payload, retained) => {
          if (this.#wire === wire) this.#onPublish(topic, payload, retained);
        },
        onClose: () => {
          if (this.#wire !== wire) return;
          this.#wire = undefined;
          this.#ready = false;
          this.#positioned = false;
          this.#connectingSince = undefined;
          this.#scheduleRetry();
        },
      },
    );
    this.#wire = wire;
  }

  #scheduleRetry(): void {
    if (!this.#running) return;
    this.#retry = setTimeout(() => this.#connect(), this.#backoff.next());
  }

  #onReady(wire: MqttWire): void {
    this.#ready = true;
    this.#positioned = false;
    this.#backoff.reset();
    this.counters.connects++;
    wire.publish(this.#topics.presence, this.#presence(true), true);
    this.#hello();
    this.#sentUpTo = this.#ackedDseq;
    this.#progressAt = Date.now();
  }

  #hello(): void {
    this.#helloAt = Date.now();
    this.#send({
      v: PROTOCOL_VERSION,
      type: 'hello',
      lockerId: this.id,
      appliedCseq: this.#appliedCseq,
      ackedDseq: this.#ackedDseq,
      conn: this.#conn,
      commandTypes: [...COMMAND_TYPES],
      ...(this.#agentVersion === undefined ? {} : { agent: { version: this.#agentVersion, updates: true, ...(this.#lastReport ? { update: this.#lastReport } : {}) } }),
    });
  }

  #presence(online: boolean): string {
    return JSON.stringify({ v: PROTOCOL_VERSION, online, conn: this.#conn, at: Date.now() });
  }

  #send(msg: object): void {
    this.#wire?.publish(this.#topics.up, JSON.stringify(msg));
  }

  // --- inbound ---------------------------------------------------------------------------------

  #onPublish(topic: string, payload: Buffer, retained: boolean): void {
    let msg: { v?: unknown; type?: unknown; online?: unknown; conn?: unknown } & Record<string, unknown>;
    try {
      msg = JSON.parse(payload.toString('utf8')) as typeof msg;
    } catch {
      return; // an empty retained presence clears the topic
    }
    if (msg?.v !== PROTOCOL_VERSION) return;
    if (topic === this.#topics.presence) {
      // A presence above ours, or an earlier life's will with our number: go on above it.
      const conn = typeof msg.conn === 'number' ? msg.conn : 0;
      if (conn > this.#conn || (conn === this.#conn && msg.online === false)) {
        this.#conn = conn;
        this.#wire?.destroy();
      }
      return;
    }
    if (topic !== this.#topics.down || retained) return;
    switch (msg.type) {
      case 'commands':
        if (this.deaf) {
          this.counters.dropped += (msg.items as unknown[]).length;
          return;
        }
        this.#commands(msg.items as Command[]);
        return;
      case 'snapshot':
        if (this.deaf) {
          this.counters.dropped++;
          return;
        }
        this.#snapshot(msg.snapshot as Snapshot);
        return;
      case 'update':
        this.#offered(msg.offer as UpdateOffer);
        return;
      case 'ack':
        this.#acked(msg.ackedDseq as number, msg.conn === undefined || msg.conn === this.#conn);
        return;
    }
  }

  /**
   * An update offer, answered as the agent answers it: each step's report in turn, the new version
   * running from the switch on, then confirmed. An offer of the running version (a resend after
   * the install) is answered with the final report again.
   */
  #offered(offer: UpdateOffer): void {
    if (this.#agentVersion === undefined) return;
    this.counters.offers++;
    const report = (state: UpdateState, running: string): void => {
      this.#lastReport = { rolloutId: offer.rolloutId, releaseId: offer.releaseId, version: offer.version, state, running, at: Date.now() };
      this.#send({ v: PROTOCOL_VERSION, type: 'update', report: this.#lastReport });
    };
    if (this.#agentVersion === offer.version) {
      report('confirmed', offer.version);
      return;
    }
    const before = this.#agentVersion;
    for (const state of ['offered', 'downloading', 'verifying', 'staged', 'waiting', 'switching'] as const) report(state, before);
    this.#agentVersion = offer.version;
    report('confirmed', offer.version);
    this.counters.installed++;
  }

  #commands(items: Command[]): void {
    for (const command of [...items].sort((a, b) => a.cseq - b.cseq)) {
      if (command.cseq <= this.#appliedCseq) {
        this.counters.duplicates++;
        continue;
      }
      if (command.cseq !== this.#appliedCseq + 1) {
        this.counters.gaps++;
        break;
      }
      this.#apply(command);
      this.#appliedCseq = command.cseq;
      this.counters.applied++;
    }
    this.#send({ v: PROTOCOL_VERSION, type: 'ack', appliedCseq: this.#appliedCseq });
  }

  #apply(command: Command): void {
    switch (command.type) {
      case 'order.upsert': {
        const held = this.#orders.get(command.order.orderId);
        this.#orders.set(command.order.orderId, { upserts: (held?.upserts ?? 0) + 1, intent: command.order });
        return;
      }
      case 'order.remove':
        this.#orders.delete(command.orderId);
        return;
      case 'courier.grant':
        this.#grants.add(command.grant.grantId);
        return;
      case 'courier.revoke':
        this.#grants.delete(command.grantId);
        return;
      case 'cell.open':
        this.record({ type: 'cell.open', cseq: command.cseq, cellId: command.cellId, outcome: Date.now() > command.notAfter ? 'stale' : 'opened' });
        return;
      case 'locker.config':
      case 'cell.flags':
      case 'order.handover':
        return; // a light locker has no cells of its own
      case 'service.code':
        return; // nor a screen
    }
  }

  #snapshot(snapshot: Snapshot): void {
    if (snapshot.cseq >= this.#appliedCseq) {
      this.counters.snapshots++;
      const before = new Map(this.#orders);
      this.#orders.clear();
      for (const order of snapshot.orders) this.#orders.set(order.orderId, { upserts: before.get(order.orderId)?.upserts ?? 0, intent: order });
      this.#grants.clear();
      for (const grant of snapshot.grants) this.#grants.add(grant.grantId);
      this.#appliedCseq = snapshot.cseq;
    }
    this.#send({ v: PROTOCOL_VERSION, type: 'ack', appliedCseq: this.#appliedCseq });
  }

  #acked(dseq: number, answersHello: boolean): void {
    if (dseq > this.#ackedDseq) {
      const before = this.#outbox.length;
      this.#outbox = this.#outbox.filter((e) => e.dseq > dseq);
      this.counters.eventsAcked += before - this.#outbox.length;
      this.#ackedDseq = dseq;
      this.#progressAt = Date.now();
    }
    if (answersHello && !this.#positioned) {
      this.#positioned = true;
      this.#progressAt = Date.now();
    } else if (!answersHello && !this.#positioned && this.#ready) {
      // As the agent: an ack naming an earlier connection means the cloud has not had this hello.
      this.#hello();
    }
    this.#sentUpTo = Math.max(this.#sentUpTo, this.#ackedDseq);
    this.#pump();
  }

  // --- outbound --------------------------------------------------------------------------------

  /** Events after what this connection sent, in batches of 50, at most 200 unacked. */
  #pump(): void {
    if (!this.#ready || !this.#positioned) return;
    for (;;) {
      const from = Math.max(this.#sentUpTo, this.#ackedDseq);
      const room = this.#ackedDseq + 200 - from;
      const items = this.#outbox.filter((e) => e.dseq > from).slice(0, Math.min(50, room));
      const last = items.at(-1);
      if (!last || room <= 0) return;
      if (from === this.#ackedDseq) this.#progressAt = Date.now();
      this.#send({ v: PROTOCOL_VERSION, type: 'events', items });
      this.#sentUpTo = last.dseq;
    }
  }

  /** Loads every reserved parcel of its orders: the courier closed the door (`parcel.loaded`). */
  loadReserved(): number {
    const grant = this.#grants.values().next().value ?? 'light-locker';
    let n = 0;
    for (const { intent } of this.#orders.values()) {
      for (const p of intent.parcels) {
        if (p.state !== 'pending' || p.cellId === null) continue;
        this.record({ type: 'parcel.loaded', orderId: intent.orderId, barcode: p.barcode, cellId: p.cellId, grantId: grant });
        n++;
      }
    }
    return n;
  }
}
