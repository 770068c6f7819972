/**
 * The MQTT side of the cloud as one start/stop part for startCloud(): with no broker URL it
 * starts the embedded broker (with per-locker auth) and points the locker link at it; with a URL
 * it connects the link to that broker (Mosquitto, EMQX). Stopping undoes it in reverse.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { MAX_MESSAGE_BYTES } from '../../../shared/src/protocol.js';
import { type BrokerLimits, EmbeddedBroker } from '../broker/embedded-broker.js';
import type { LinkMetrics } from '../metrics/link.js';
import { oversizedReporter } from './oversized-alert.js';
import type { Clock } from '../clock.js';
import type { CloudDatabase } from '../db/database.js';
import { transaction } from '../db/transaction.js';
import { presenceLostWithBroker } from '../repositories/locker-stream.js';
import type { OutboxSignals } from '../outbox/signals.js';
import type { Scheduler } from '../scheduler.js';
import { type ApplyEvent, type LockerLink, type LockerLinkHooks, type LockerLinkOptions, createLockerLink } from './locker-link.js';
import type { LockerUpdates } from './update-channel.js';

export interface MqttSettings {
  /** External broker (mqtt:// or mqtts://); unset = start the embedded broker. */
  url?: string | undefined;
  /** Embedded broker only. */
  brokerHost: string;
  /** Embedded broker only; 0 = a free port. */
  brokerPort: number;
  /** Name of the port setting, quoted when the port is taken. */
  brokerPortSetting?: string;
  /** The cloud's own broker identity. */
  username: string;
  password: string;
  /** Default `<username>-<random>`: unique per process, as the embedded broker requires. */
  clientId?: string | undefined;
  sharedGroup?: string | undefined;
  /** Largest locker message, bytes: the embedded broker's packet limit and the link's check. */
  maxPacketBytes?: number;
  /** The embedded broker's per-client bounds (its defaults when unset). */
  brokerLimits?: BrokerLimits;
}

export interface MqttPartDeps {
  db: CloudDatabase;
  signals: OutboxSignals;
  clock: Clock;
  logger: Logger;
  applyEvent: ApplyEvent;
  onCommandsApplied?: (lockerId: number, appliedCseq: number) => Promise<void> | void;
  options?: Partial<LockerLinkOptions>;
  hooks?: LockerLinkHooks;
  /** The cloud's reservation release grace (snapshots carry `loadableUntil` with it). */
  reservationGraceMinutes?: number;
  /** The process's scheduler, for the locker link's poll and trim jobs. */
  scheduler?: Scheduler;
  /** The lockers' software updates (updates/conductor.ts). */
  updates?: LockerUpdates;
  /** The process's link metrics (oversized messages). */
  metrics?: LinkMetrics;
}

export class MqttPart {
  readonly name = 'mqtt';
  readonly #settings: MqttSettings;
  readonly #deps: MqttPartDeps;
  #broker: EmbeddedBroker | undefined;
  #link: LockerLink | undefined;
  #starting: Promise<void> | undefined;

  constructor(settings: MqttSettings, deps: MqttPartDeps) {
    this.#settings = settings;
    this.#deps = deps;
  }

  /** The embedded broker's URL (undefined with an external broker or before start). */
  get brokerUrl(): string | undefined {
    return this.#broker?.url;
  }

  /** Whether the locker link is connected to the broker (false before start and after stop). */
  get connected(): boolean {
    return this.#link?.connected ?? false;
  }

  get link(): LockerLink | undefined {
    return this.#link;
  }

  start(): Promise<void> {
    this.#starting ??= this.#start().catch(async (err: unknown) => {
      this.#starting = undefined;
      await this.#teardown();
      throw err;
    });
    return this.#starting;
  }

  async #start(): Promise<void> {
    const s = this.#settings;
    const maxPacketBytes = s.maxPacketBytes ?? MAX_MESSAGE_BYTES;
    const oversized = oversizedReporter(this.#deps, maxPacketBytes);
    let url = s.url;
    if (!url) {
      this.#broker = new EmbeddedBroker({
        db: this.#deps.db,
        logger: this.#deps.logger.child({ part: 'broker' }),
        host: s.brokerHost,
        port: s.brokerPort,
        portSetting: s.brokerPortSetting,
        cloud: { username: s.username, password: s.password },
        maxPacketBytes,
        ...s.brokerLimits,
        onOversized: (clientId, bytes) => oversized('broker', clientId, bytes),
      });
      await this.#broker.start();
      url = this.#broker.url;
      const lost = await transaction(this.#deps.db, (tx) => presenceLostWithBroker(tx, this.#deps.clock.now()));
      if (lost > 0) this.#deps.logger.info({ lockers: lost }, 'embedded broker started: lockers stored online are offline until they reconnect');
    }
    this.#link = createLockerLink({
      ...this.#deps,
      logger: this.#deps.logger.child({ part: 'locker-link' }),
      options: { ...this.#deps.options, maxMessageBytes: maxPacketBytes },
      onOversized: (lockerId, bytes) => oversized('link', lockerId, bytes),
      mqtt: {
        url,
        username: s.username,
        password: s.password,
        clientId: s.clientId ?? `${s.username}-${randomUUID().slice(0, 8)}`,
        sharedGroup: s.sharedGroup,
      },
    });
    await this.#link.start();
  }

  async stop(): Promise<void> {
    const starting = this.#starting;
    if (!starting) return;
    await starting.catch(() => undefined);
    this.#starting = undefined;
    await this.#teardown();
  }

  async #teardown(): Promise<void> {
    await this.#link?.stop();
    this.#link = undefined;
    await this.#broker?.stop();
    this.#broker = undefined;
  }
}
