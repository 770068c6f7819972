/**
 * The cloud end of the locker link: answers hellos with replay or snapshot, applies event
 * batches once each, tracks command acks and presence, and pushes new commands to online
 * lockers (on OutboxSignals, on the agent's acks, and on a slow poll for commands other
 * processes wrote or that were not acked in time). Behaviour is specified in
 * docs/mqtt-interface.md; messages and topics in shared/src/protocol.ts and topics.ts.
 */
import { ROOT_CONTEXT, type Span, SpanKind, trace } from '@opentelemetry/api';
import type { Logger } from 'pino';
import {
  type Command,
  type DownMessage,
  MAX_MESSAGE_BYTES,
  PROTOCOL_VERSION,
  type Presence,
  type UpMessage,
  presenceSchema,
  upMessageSchema,
} from '../../../shared/src/protocol.js';
import { parseLockerTopic, topics } from '../../../shared/src/topics.js';
import { CLOUD_TRACER, contextFrom, traceparentOf, tracer } from '../../../shared/src/tracing.js';
import type { Clock } from '../clock.js';
import type { CloudDatabase } from '../db/database.js';
import { lockerTransaction, transaction } from '../db/transaction.js';
import type { OutboxSignals } from '../outbox/signals.js';
import { Scheduler, type Job } from '../scheduler.js';
import { withClaimedLocker } from './claim.js';
import { CloudMqttClient, type MqttEndpoint } from './cloud-mqtt-client.js';
import {
  type DownPlan,
  type SnapshotBuilder,
  planHelloReplay,
  planPush,
  recordCommandAck,
} from './down-stream.js';
import type { LockerLinkHooks } from './hooks.js';
import {
  deleteAppliedCommands,
  helloConn,
  linkPresence,
  lockerAckPositions,
  lockersAwaitingCommands,
  saveHello,
  savePresence,
  setLastSeen,
} from '../repositories/locker-stream.js';
import { saveHealthReport } from '../repositories/locker-health.js';
import { KeyedQueue } from './keyed-queue.js';
import type { LockerUpdates, UpdateDownMessage, UpdateSender } from './update-channel.js';
import { lockerSnapshotBuilder } from './snapshot.js';
import { commandBatches } from './command-batches.js';
import { type ApplyEvent, applyEvents, reconcileAgentAck } from './up-stream.js';
import { LOCKER_LINK_CALLER, runAsPoolCaller } from '../db/pool-callers.js';

export type { ApplyEvent, EventsResult } from './up-stream.js';
export type { LockerLinkHooks } from './hooks.js';

export interface LockerLinkOptions {
  /** Commands per `commands` message. */
  batchSize: number;
  /** Commands published and not yet acked per locker. */
  windowSize: number;
  /** Without ack progress for this long, unacked commands are sent again. */
  resendAfterMs: number;
  /** Slow poll for commands written by other processes and for resends. */
  pollIntervalMs: number;
  /** Applied commands older than this are deleted from the log. */
  logRetentionMs: number;
  trimIntervalMs: number;
  /** How long start() keeps trying to reach the broker. */
  connectTimeoutMs: number;
  reconnectPeriodMs: number;
  /** A locker message over this many bytes is refused before it is parsed (MQTT_MAX_PACKET_BYTES). */
  maxMessageBytes: number;
}

export const DEFAULT_LINK_OPTIONS: LockerLinkOptions = {
  batchSize: 50,
  windowSize: 200,
  resendAfterMs: 30_000,
  pollIntervalMs: 10_000,
  logRetentionMs: 7 * 24 * 3600_000,
  trimIntervalMs: 3600_000,
  connectTimeoutMs: 15_000,
  reconnectPeriodMs: 2_000,
  maxMessageBytes: MAX_MESSAGE_BYTES,
};

export interface LockerLinkDeps {
  db: CloudDatabase;
  signals: OutboxSignals;
  clock: Clock;
  logger: Logger;
  mqtt: MqttEndpoint;
  /** The domain's handling of one event, inside the event's transaction. */
  applyEvent: ApplyEvent;
  /** After the agent's applied_cseq advanced (outside any transaction). */
  onCommandsApplied?: (lockerId: number, appliedCseq: number) => Promise<void> | void;
  options?: Partial<LockerLinkOptions>;
  /** Observation and fault-injection points. */
  hooks?: LockerLinkHooks;
  /** The cloud's reservation release grace: snapshots then carry each order's `loadableUntil`. */
  reservationGraceMinutes?: number;
  /** The process's scheduler (the poll and trim jobs); one of its own on real timers when absent. */
  scheduler?: Scheduler;
  /** The lockers' software updates: hellos, presence versions and update reports go there. */
  updates?: LockerUpdates;
  /** A locker's message refused for its size (counted and raised as an alert by the caller). */
  onOversized?: (lockerId: number, bytes: number) => void;
}

const LOCKER_ID = /^[1-9]\d{0,9}$/;
const MAX_LOCKER_ID = 2 ** 31 - 1;

function lockerIdOf(text: string): number | null {
  if (!LOCKER_ID.test(text)) return null;
  const id = Number(text);
  return id <= MAX_LOCKER_ID ? id : null;
}

export class LockerLink implements UpdateSender {
  readonly #deps: LockerLinkDeps;
  readonly #opts: LockerLinkOptions;
  readonly #log: Logger;
  readonly #buildSnapshot: SnapshotBuilder;
  readonly #queue: KeyedQueue<number>;
  #mqtt: CloudMqttClient | undefined;
  #offSignals: (() => void) | undefined;
  readonly #pollJob: Job<void>;
  readonly #trimJob: Job<void>;
  #polling: Promise<void> | undefined;
  #running = false;
  #starting: Promise<void> | undefined;

  constructor(deps: LockerLinkDeps) {
    this.#deps = deps;
    this.#opts = { ...DEFAULT_LINK_OPTIONS, ...deps.options };
    this.#log = deps.logger;
    this.#buildSnapshot = lockerSnapshotBuilder(deps.clock, deps.reservationGraceMinutes);
    this.#queue = new KeyedQueue((lockerId, err) => this.#log.error({ err, lockerId }, 'locker link task failed'));
    const scheduler = deps.scheduler ?? new Scheduler({ logger: deps.logger });
    this.#pollJob = scheduler.job('locker-link-poll', () => this.#polling ?? this.pollOnce(), { everyMs: this.#opts.pollIntervalMs });
    const trim = (): Promise<void> =>
      this.trimOnce().then(
        () => undefined,
        (err: unknown) => this.#log.error({ err }, 'command log trim failed'),
      );
    this.#trimJob = scheduler.job('locker-link-trim', trim, { everyMs: this.#opts.trimIntervalMs });
  }

  /** Connects, subscribes, and starts the poll and trim timers. Idempotent. */
  start(): Promise<void> {
    this.#starting ??= this.#start().catch(async (err: unknown) => {
      this.#starting = undefined;
      await this.#teardown();
      throw err;
    });
    return this.#starting;
  }

  async #start(): Promise<void> {
    this.#running = true;
    this.#mqtt = new CloudMqttClient({
      endpoint: this.#deps.mqtt,
      logger: this.#log,
      connectTimeoutMs: this.#opts.connectTimeoutMs,
      reconnectPeriodMs: this.#opts.reconnectPeriodMs,
      onMessage: (topic, payload, retained) => runAsPoolCaller(LOCKER_LINK_CALLER, () => this.#onMessage(topic, payload, retained)),
      onReady: () => {
        void this.#askForLostHellos();
        void this.pollOnce();
      },
    });
    this.#offSignals = this.#deps.signals.onCommands((lockerId) => void this.#queue.run(lockerId, () => this.#push(lockerId)));
    await this.#mqtt.start();
    this.#pollJob.start();
    this.#trimJob.start();
  }

  /** Whether the link is connected to the broker and subscribed. */
  get connected(): boolean {
    return this.#mqtt?.ready ?? false;
  }

  /** Disconnects and waits for the work in hand. Idempotent. */
  async stop(): Promise<void> {
    const starting = this.#starting;
    if (!starting) return;
    await starting.catch(() => undefined);
    this.#starting = undefined;
    await this.#teardown();
  }

  async #teardown(): Promise<void> {
    this.#running = false;
    // Disarmed at once; a run in progress is awaited with the rest of the work in hand.
    const jobsStopped = Promise.all([this.#pollJob.stop(), this.#trimJob.stop()]);
    this.#offSignals?.();
    this.#offSignals = undefined;
    await this.#mqtt?.stop();
    this.#mqtt = undefined;
    await this.#polling;
    await jobsStopped;
    await this.#queue.drain();
  }

  /**
   * One round of the slow poll: pushes to every online locker whose agent has not acked all its
   * commands (new commands from other processes, or a resend after `resendAfterMs`).
   */
  pollOnce(): Promise<void> {
    const next = (this.#polling ?? Promise.resolve()).then(() => this.#poll());
    const tracked = next.finally(() => {
      if (this.#polling === tracked) this.#polling = undefined;
    });
    this.#polling = tracked;
    return tracked;
  }

  async #poll(): Promise<void> {
    if (!this.#running) return;
    try {
      const ids = await lockersAwaitingCommands(this.#deps.db.db);
      await Promise.all(ids.map((id) => this.#queue.run(id, () => this.#push(id))));
    } catch (err) {
      this.#log.error({ err }, 'locker link poll failed');
    }
  }

  /**
   * After every (re)subscribe: an agent that connected while the cloud was not subscribed (the
   * broker or the cloud restarting) said its hello into the void and would say it again only after
   * its resend time. An ack naming the last connection the cloud answered tells such an agent its
   * hello is missing, and it says it again at once; an agent whose hello was answered sees an ack it
   * already had. One message per locker, whether or not it is connected now.
   */
  async #askForLostHellos(): Promise<void> {
    try {
      const positions = await lockerAckPositions(this.#deps.db.db);
      for (const p of positions) this.#send(p.id, { v: PROTOCOL_VERSION, type: 'ack', ackedDseq: p.ackedDseq, conn: p.helloConn });
    } catch (err) {
      this.#log.error({ err }, 'asking the lockers for lost hellos failed');
    }
  }

  /** Deletes applied commands older than the retention; returns how many. */
  async trimOnce(): Promise<number> {
    const olderThan = this.#deps.clock.now() - this.#opts.logRetentionMs;
    const n = await transaction(this.#deps.db, (tx) => deleteAppliedCommands(tx, olderThan));
    if (n > 0) this.#log.info({ deleted: n }, 'trimmed applied commands from the log');
    return n;
  }

  // -------------------------------------------------------------------------------------------
  // Inbound
  // -------------------------------------------------------------------------------------------

  #onMessage(topic: string, payload: Buffer, retained: boolean): void {
    if (!this.#running) return;
    const t = parseLockerTopic(topic);
    const lockerId = t ? lockerIdOf(t.lockerId) : null;
    if (!t || lockerId === null || t.kind === 'down') {
      this.#log.warn({ topic }, 'message on an unexpected topic ignored');
      return;
    }
    // A retained message on `up` is a stale copy, never a live message of the protocol.
    if (t.kind === 'up' && retained) return;
    // Before any parsing: a message over the bound costs no more than its bytes already did.
    if (payload.length > this.#opts.maxMessageBytes) {
      this.#log.warn({ lockerId, kind: t.kind, bytes: payload.length, limit: this.#opts.maxMessageBytes }, 'message over the size limit; ignored');
      this.#deps.onOversized?.(lockerId, payload.length);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(payload.toString('utf8'));
    } catch {
      this.#log.warn({ lockerId, kind: t.kind }, 'message is not JSON; ignored');
      return;
    }
    const version = (json as { v?: unknown } | null)?.v;
    if (version !== PROTOCOL_VERSION) {
      this.#log.warn({ lockerId, kind: t.kind, version }, 'unsupported protocol version; ignored');
      return;
    }
    if (t.kind === 'presence') {
      const parsed = presenceSchema.safeParse(json);
      if (!parsed.success) return this.#invalid(lockerId, t.kind, parsed.error.issues.length);
      void this.#queue.run(lockerId, () => this.#onPresence(lockerId, parsed.data));
      return;
    }
    const parsed = upMessageSchema.safeParse(json);
    if (!parsed.success) return this.#invalid(lockerId, t.kind, parsed.error.issues.length);
    if (this.#deps.hooks?.onReceive?.(lockerId, parsed.data) === false) return;
    void this.#queue.run(lockerId, () => this.#onUp(lockerId, parsed.data));
  }

  #invalid(lockerId: number, kind: string, issues: number): void {
    this.#log.warn({ lockerId, kind, issues }, 'message does not match the protocol schema; ignored');
  }

  async #onUp(lockerId: number, msg: UpMessage): Promise<void> {
    switch (msg.type) {
      case 'hello':
        return this.#onHello(lockerId, msg);
      case 'events':
        return this.#onEvents(lockerId, msg.items);
      case 'ack':
        return this.#onCommandAck(lockerId, msg.appliedCseq);
      case 'health':
        return this.#onHealth(lockerId, msg.report);
      case 'update':
        return this.#deps.updates?.onReport(lockerId, msg.report);
    }
  }

  async #onHello(lockerId: number, hello: Extract<UpMessage, { type: 'hello' }>): Promise<void> {
    if (hello.lockerId !== String(lockerId)) {
      this.#log.warn({ lockerId, claimed: hello.lockerId }, 'hello names another locker; ignored');
      return;
    }
    const now = this.#deps.clock.now();
    const out = await lockerTransaction(this.#deps.db, [lockerId], async (tx) => {
      const up = await reconcileAgentAck(tx, lockerId, hello.ackedDseq);
      if (!up) return null;
      const cameOnline = await savePresence(tx, lockerId, hello.conn, true, now);
      await saveHello(tx, lockerId, hello.conn, hello.commandTypes);
      await setLastSeen(tx, lockerId, now);
      const down = await planHelloReplay(tx, lockerId, hello.appliedCseq, now, this.#opts, this.#buildSnapshot);
      return down ? { up, down, cameOnline } : null;
    });
    if (!out) {
      this.#log.warn({ lockerId }, 'hello from a locker the cloud does not know; ignored');
      return;
    }
    if (out.up.lost) {
      this.#log.error({ lockerId, lost: out.up.lost }, 'locker reports events acknowledged that the cloud no longer has (restored database?); they are lost');
    }
    this.#log.info(
      { lockerId, conn: hello.conn, appliedCseq: hello.appliedCseq, ackedDseq: out.up.ackedDseq, answer: describe(out.down.plan) },
      'locker hello',
    );
    if (out.cameOnline) this.#deps.signals.live.publish({ type: 'locker', lockerId, online: true });
    this.#sendPlan(lockerId, out.down.plan);
    this.#send(lockerId, { v: PROTOCOL_VERSION, type: 'ack', ackedDseq: out.up.ackedDseq, conn: hello.conn });
    if (out.down.advancedTo !== null) await this.#deps.onCommandsApplied?.(lockerId, out.down.advancedTo);
    await this.#deps.updates?.onHello(lockerId, hello.agent);
  }

  async #onEvents(lockerId: number, items: Extract<UpMessage, { type: 'events' }>['items']): Promise<void> {
    const result = await applyEvents(this.#deps.db, lockerId, items, this.#deps.clock.now(), this.#deps.applyEvent, (event, err) =>
      this.#log.error({ err, lockerId, dseq: event.dseq, type: event.type }, 'applying a locker event failed; it will come again'),
    );
    if (!result) {
      this.#log.warn({ lockerId }, 'events from a locker the cloud does not know; ignored');
      return;
    }
    if (result.gapAt !== null) this.#log.info({ lockerId, gapAt: result.gapAt, ackedDseq: result.ackedDseq }, 'event gap; waiting for the resend');
    this.#deps.hooks?.afterEvents?.(lockerId, result);
    // The dispatcher starts on what the events recorded before the ack's read of the hello's
    // connection: a marketplace waits on this path, the agent's ack does not.
    if (result.applied > 0) this.#deps.signals.notificationsRecorded();
    this.#send(lockerId, { v: PROTOCOL_VERSION, type: 'ack', ackedDseq: result.ackedDseq, conn: await this.#helloConn(lockerId) });
    if (result.applied > 0) this.#deps.signals.commandsRecorded([lockerId, ...result.commandsFor]);
  }

  /** The connection whose hello was answered last: an ack names it, so the agent knows its hello arrived. */
  async #helloConn(lockerId: number): Promise<number> {
    return helloConn(this.#deps.db.db, lockerId);
  }

  async #onCommandAck(lockerId: number, appliedCseq: number): Promise<void> {
    const now = this.#deps.clock.now();
    const advanced = await lockerTransaction(this.#deps.db, [lockerId], async (tx) => {
      await setLastSeen(tx, lockerId, now);
      return recordCommandAck(tx, lockerId, appliedCseq, now);
    });
    if (advanced === null) return;
    await this.#deps.onCommandsApplied?.(lockerId, advanced);
    await this.#push(lockerId);
  }

  /** Keeps the agent's latest health report (operator endpoint, metrics); nothing is answered. */
  async #onHealth(lockerId: number, report: Extract<UpMessage, { type: 'health' }>['report']): Promise<void> {
    const known = await transaction(this.#deps.db, (tx) => saveHealthReport(tx, lockerId, report, this.#deps.clock.now()));
    if (!known) this.#log.warn({ lockerId }, 'health report from a locker the cloud does not know; ignored');
    else this.#log.debug({ lockerId, doorFaults: report.doorFaults, boardErrors: report.boards.errors }, 'locker health report');
  }

  async #onPresence(lockerId: number, presence: Presence): Promise<void> {
    const now = this.#deps.clock.now();
    const changed = await transaction(this.#deps.db, (tx) => savePresence(tx, lockerId, presence.conn, presence.online, now));
    if (changed && presence.online && presence.version) await this.#deps.updates?.onPresence(lockerId, presence.version);
    if (!changed) return;
    this.#log.info({ lockerId, online: presence.online, conn: presence.conn }, 'locker presence');
    this.#deps.signals.live.publish({ type: 'locker', lockerId, online: presence.online });
  }

  // -------------------------------------------------------------------------------------------
  // Outbound
  // -------------------------------------------------------------------------------------------

  async #push(lockerId: number): Promise<void> {
    if (!this.#running || !this.#mqtt?.ready) return;
    const now = this.#deps.clock.now();
    const plan = await withClaimedLocker(this.#deps.db, lockerId, async (tx) => {
      const presence = await linkPresence(tx, lockerId);
      // Only to a connection that is up and has told its position.
      if (!presence?.online || presence.helloConn !== presence.presenceConn) return { kind: 'none' } as const;
      return planPush(tx, lockerId, now, this.#opts, this.#buildSnapshot);
    });
    if (plan && plan.kind !== 'none') {
      this.#log.debug({ lockerId, push: describe(plan) }, 'pushing to locker');
      this.#sendPlan(lockerId, plan);
    }
  }

  #sendPlan(lockerId: number, plan: DownPlan): void {
    if (plan.kind === 'snapshot') {
      this.#send(lockerId, { v: PROTOCOL_VERSION, type: 'snapshot', snapshot: plan.snapshot });
    } else if (plan.kind === 'commands') {
      for (const items of commandBatches(plan.commands, this.#opts.batchSize)) {
        const published = publishSpans(lockerId, items);
        this.#send(lockerId, { v: PROTOCOL_VERSION, type: 'commands', items: published.items });
        published.end();
      }
    }
  }

  /** An update offer or cancellation to one locker; false when not connected to the broker. */
  sendUpdate(lockerId: number, message: UpdateDownMessage): boolean {
    if (!this.#running || !this.#mqtt?.ready) return false;
    this.#send(lockerId, message);
    return true;
  }

  #send(lockerId: number, msg: DownMessage): void {
    if (this.#deps.hooks?.beforePublish?.(lockerId, msg) === false) return;
    if (!this.#mqtt?.publish(topics.down(String(lockerId)), JSON.stringify(msg))) {
      this.#log.debug({ lockerId, type: msg.type }, 'not connected; left for the resend');
    }
  }
}

/**
 * A `command.publish` span for each traced command (child of the span that recorded it); the
 * command goes out carrying the publish span's traceparent, which the agent's apply continues.
 * Untraced commands (tracing off, or recorded while it was) go out as they are.
 */
function publishSpans(lockerId: number, items: readonly Command[]): { items: Command[]; end: () => void } {
  const spans: Span[] = [];
  const out = items.map((command) => {
    if (!command.traceparent) return command;
    const span = tracer(CLOUD_TRACER).startSpan(
      'command.publish',
      {
        kind: SpanKind.PRODUCER,
        attributes: { 'messaging.system': 'mqtt', 'messaging.destination.name': topics.down(String(lockerId)), 'locker.command.cseq': command.cseq, 'locker.command.type': command.type },
      },
      contextFrom(command.traceparent),
    );
    spans.push(span);
    const traceparent = traceparentOf(trace.setSpan(ROOT_CONTEXT, span));
    return traceparent === undefined ? command : { ...command, traceparent };
  });
  return { items: out, end: () => spans.forEach((s) => s.end()) };
}

function describe(plan: DownPlan): string {
  switch (plan.kind) {
    case 'none':
      return 'nothing to replay';
    case 'commands':
      return `commands ${plan.commands[0]?.cseq}..${plan.commands.at(-1)?.cseq}`;
    case 'snapshot':
      return `snapshot at ${plan.snapshot.cseq} (${plan.reason})`;
  }
}

export function createLockerLink(deps: LockerLinkDeps): LockerLink {
  return new LockerLink(deps);
}
