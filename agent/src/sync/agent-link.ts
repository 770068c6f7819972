/**
 * The agent's end of the locker link (docs/mqtt-interface.md): connects as the locker, keeps
 * presence with a connection counter, says hello on every connect, applies the cloud's commands
 * and snapshots in order and acks them, and sends the outbox's events until the cloud acks them.
 *
 * The store is the only truth: appliedCseq, the outbox and the cloud's ack are in SQLite, so a
 * lost message, a dropped connection or a restart costs a resend, never a fact or a command. The
 * locker's flows never wait for the link: start() returns at once and the link connects (and
 * reconnects, with back-off) on its own.
 */
import type { Logger } from 'pino';
import {
  type AgentSoftware,
  COMMAND_TYPES,
  MAX_DOWN_MESSAGE_BYTES,
  PROTOCOL_VERSION,
  downMessageSchema,
  presenceSchema,
  type DownMessage,
  type HealthReport,
  type LockerEvent,
  type UpMessage,
  type UpdateOffer,
  type UpdateReport,
} from '../../../shared/src/protocol.js';
import { topics } from '../../../shared/src/topics.js';
import type { Clock } from '../clock.js';
import type { LockerStore } from '../store/index.js';
import { DownStream } from './down-stream.js';
import type { LinkHooks } from './hooks.js';
import { MqttConnection } from './mqtt-connection.js';
import { systemTimers, type Timers } from './timers.js';
import { UpStream } from './up-stream.js';

export interface AgentLinkSettings {
  lockerId: string;
  url: string;
  password: string;
  keepaliveSec: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  resendAfterMs: number;
  batchSize: number;
  windowSize: number;
  /** A message over this many bytes is refused before it is parsed; default MAX_DOWN_MESSAGE_BYTES. */
  maxMessageBytes?: number;
}

export interface AgentLinkDeps {
  store: LockerStore;
  clock: Clock;
  logger: Logger;
  /** Timer of the resend of unacked events (tests move it by hand); reconnects use real time. */
  timers?: Timers;
  /** Jitter of the reconnect back-off. */
  random?: () => number;
  hooks?: LinkHooks;
  /** The agent's software version, in its presence. */
  version?: string;
  /** The agent's updates (docs/updates.md): what its hello says, and where offers go. */
  updates?: LinkUpdates;
}

/** The updater as the link sees it. */
export interface LinkUpdates {
  software(): AgentSoftware;
  offer(offer: UpdateOffer): void;
  cancel(rolloutId: number, releaseId: number): void;
}

export class AgentLink {
  readonly #store: LockerStore;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #hooks: LinkHooks;
  readonly #topics: { up: string; down: string; presence: string };
  readonly #lockerId: string;
  readonly #mqtt: MqttConnection;
  readonly #up: UpStream;
  readonly #down: DownStream;
  readonly #version: string | undefined;
  readonly #updates: LinkUpdates | undefined;
  readonly #maxMessageBytes: number;
  #conn = 0;
  #oversized = 0;
  #readies = 0;
  #running = false;
  #offAppend: (() => void) | undefined;

  constructor(settings: AgentLinkSettings, deps: AgentLinkDeps) {
    const id = settings.lockerId;
    this.#maxMessageBytes = settings.maxMessageBytes ?? MAX_DOWN_MESSAGE_BYTES;
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#log = deps.logger;
    this.#hooks = deps.hooks ?? {};
    this.#lockerId = id;
    this.#version = deps.version;
    this.#updates = deps.updates;
    this.#topics = { up: topics.up(id), down: topics.down(id), presence: topics.presence(id) };
    this.#down = new DownStream(deps.store, deps.logger, this.#hooks);
    this.#up = new UpStream(
      deps.store,
      deps.clock,
      deps.timers ?? systemTimers,
      settings,
      (items) => this.#sendEvents(items),
      deps.logger,
      () => this.#guard('greeting the cloud again', () => this.#hello()),
    );
    this.#mqtt = new MqttConnection(
      {
        url: settings.url,
        clientId: id,
        password: settings.password,
        keepaliveSec: settings.keepaliveSec,
        reconnectMinMs: settings.reconnectMinMs,
        reconnectMaxMs: settings.reconnectMaxMs,
        // Its own presence too: after a lost store the retained one shows which counter to go above.
        subscriptions: [this.#topics.down, this.#topics.presence],
      },
      {
        willFor: () => this.#nextConnection(),
        onReady: () => this.#onReady(),
        onMessage: (topic, payload, retained) => this.#onMessage(topic, payload, retained),
        onLost: () => this.#up.lost(),
      },
      deps.logger,
      systemTimers,
      deps.random ?? Math.random,
    );
  }

  /** Connected and subscribed (the hello goes out the moment this turns true). */
  get connected(): boolean {
    return this.#mqtt.ready;
  }

  /** Connected, and the cloud answered this connection's hello. */
  get greeted(): boolean {
    return this.#mqtt.ready && this.#up.positioned;
  }

  /** Sends an update's progress (protocol `update`); false when not connected (the next hello carries the latest). */
  sendUpdate(report: UpdateReport): boolean {
    if (!this.#mqtt.ready) return false;
    return this.#sendUp({ v: PROTOCOL_VERSION, type: 'update', report });
  }

  /** Connections made again after the first since start (each is a link that was lost). */
  get reconnects(): number {
    return Math.max(0, this.#readies - 1);
  }

  /** Sends the agent's health report (protocol `health`); false when not connected (it is not queued). */
  sendHealth(report: HealthReport): boolean {
    if (!this.#mqtt.ready) return false;
    return this.#sendUp({ v: PROTOCOL_VERSION, type: 'health', report });
  }

  /** The connection counter of the current (or last) connection. */
  get conn(): number {
    return this.#conn;
  }

  /** Begins connecting; never waits for the broker. Idempotent. */
  start(): Promise<void> {
    if (this.#running) return Promise.resolve();
    this.#running = true;
    this.#offAppend = this.#store.outbox.onAppend(() => this.#guard('sending events', () => this.#up.pump()));
    this.#mqtt.start();
    return Promise.resolve();
  }

  /** Says offline (retained) while connected, disconnects, and stops reconnecting. Idempotent. */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.#offAppend?.();
    this.#offAppend = undefined;
    this.#up.stop();
    await this.#mqtt.stop({ topic: this.#topics.presence, payload: this.#presence(false) });
  }

  // --- connection ------------------------------------------------------------------------------

  /** Every attempt gets a new counter: a will the broker may publish late then names an old one. */
  #nextConnection(): { topic: string; payload: string } {
    this.#conn = this.#store.nextConnectionCounter();
    return { topic: this.#topics.presence, payload: this.#presence(false) };
  }

  #presence(online: boolean): string {
    return JSON.stringify({ v: PROTOCOL_VERSION, online, conn: this.#conn, at: this.#clock.now(), ...(this.#version ? { version: this.#version } : {}) });
  }

  #onReady(): void {
    this.#readies += 1;
    this.#guard('greeting the cloud', () => {
      this.#mqtt.publish(this.#topics.presence, this.#presence(true), true);
      this.#hello();
      this.#up.connected();
    });
  }

  #hello(): void {
    this.#sendUp({
      v: PROTOCOL_VERSION,
      type: 'hello',
      lockerId: this.#lockerId,
      appliedCseq: this.#store.appliedCseq(),
      ackedDseq: this.#store.ackedDseq(),
      conn: this.#conn,
      commandTypes: [...COMMAND_TYPES],
      ...(this.#updates ? { agent: this.#updates.software() } : this.#version ? { agent: { version: this.#version, updates: false } } : {}),
    });
  }

  // --- inbound ---------------------------------------------------------------------------------

  /** Messages refused for their size since start (over maxMessageBytes, before parsing). */
  get oversizedRefused(): number {
    return this.#oversized;
  }

  #onMessage(topic: string, payload: Buffer, retained: boolean): void {
    // Before any parsing: a message bigger than the protocol ever sends is not read at all.
    if (payload.length > this.#maxMessageBytes) {
      this.#oversized++;
      this.#log.warn({ topic, bytes: payload.length, limit: this.#maxMessageBytes }, 'message over the size limit; ignored');
      return;
    }
    if (topic === this.#topics.presence) {
      this.#guard('reading presence', () => this.#onPresence(payload));
      return;
    }
    if (topic !== this.#topics.down) return;
    // The cloud never retains a down message; a retained one is a stale copy a broker kept.
    if (retained) {
      this.#log.warn('retained message on the down topic ignored');
      return;
    }
    const msg = this.#parseDown(payload);
    if (!msg || this.#hooks.onReceive?.(msg) === false) return;
    this.#guard(`handling ${msg.type} from the cloud`, () => this.#onDown(msg));
  }

  #parseDown(payload: Buffer): DownMessage | null {
    let json: unknown;
    try {
      json = JSON.parse(payload.toString('utf8'));
    } catch {
      this.#log.warn('down message is not JSON; ignored');
      return null;
    }
    const version = (json as { v?: unknown } | null)?.v;
    if (version !== PROTOCOL_VERSION) {
      this.#log.warn({ version }, 'down message of an unsupported protocol version; ignored');
      return null;
    }
    const parsed = downMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.#log.warn({ issues: parsed.error.issues.map((i) => i.path.join('.')) }, 'down message does not match the protocol; ignored');
      return null;
    }
    return parsed.data;
  }

  #onDown(msg: DownMessage): void {
    switch (msg.type) {
      case 'commands':
        this.#ackCommands(this.#down.commands(msg.items));
        return;
      case 'snapshot':
        this.#ackCommands(this.#down.snapshot(msg.snapshot));
        return;
      case 'ack':
        // An ack naming another connection (or none: an older cloud) is an earlier one, or the cloud has not had this hello.
        this.#up.acked(msg.ackedDseq, msg.conn === undefined || msg.conn === this.#conn);
        return;
      case 'update':
        if (this.#updates) this.#updates.offer(msg.offer);
        else this.#log.warn({ version: msg.offer.version }, 'update offered to an agent without updates configured; ignored');
        return;
      case 'update.cancel':
        this.#updates?.cancel(msg.rolloutId, msg.releaseId);
        return;
    }
  }

  /**
   * A presence naming our counter or a higher one means the store lost (or went back on) its
   * counter: the cloud would ignore our presence, so take a number above it and connect again.
   */
  #onPresence(payload: Buffer): void {
    let json: unknown;
    try {
      json = JSON.parse(payload.toString('utf8'));
    } catch {
      return; // an empty retained message clears the topic
    }
    const parsed = presenceSchema.safeParse(json);
    if (!parsed.success) return;
    const { conn, online } = parsed.data;
    // Our own birth comes back as {online, conn}; our own will never reaches us. An "offline" with
    // our number is therefore an earlier life's, and the cloud would let it win over our birth.
    if (conn < this.#conn || (conn === this.#conn && online)) return;
    this.#log.warn({ seen: conn, ours: this.#conn }, 'the broker shows this connection counter in use already; continuing above it');
    this.#store.raiseConnectionCounter(conn);
    this.#mqtt.restart();
  }

  // --- outbound --------------------------------------------------------------------------------

  #ackCommands(appliedCseq: number): void {
    this.#sendUp({ v: PROTOCOL_VERSION, type: 'ack', appliedCseq });
  }

  #sendEvents(items: LockerEvent[]): boolean {
    return this.#sendUp({ v: PROTOCOL_VERSION, type: 'events', items });
  }

  #sendUp(msg: UpMessage): boolean {
    if (this.#hooks.beforePublish?.(msg) === false) return true;
    return this.#mqtt.publish(this.#topics.up, JSON.stringify(msg));
  }

  /** A failure in one message (a database error) is logged; the streams recover by resending. */
  #guard(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#log.error({ err }, `locker link: ${what} failed`);
    }
  }
}
