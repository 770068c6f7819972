/**
 * The agent's MQTT connection (mqtt.js, MQTT 3.1.1, clean session): one mqtt.js client per
 * attempt, so that every connection carries its own last will (the will names the connection's
 * counter), and reconnection with back-off for as long as the link runs. Handlers are attached
 * before connecting. Publishing never queues: while not connected it refuses and the caller's
 * durable log (outbox, appliedCseq) keeps what has to be sent.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { disableNagle } from '../../../shared/src/mqtt-nodelay.js';
import type { Logger } from 'pino';
import { RateLimitedLog } from '../hw/rate-limited-log.js';
import { Backoff } from './backoff.js';
import type { Timers } from './timers.js';

export interface MqttEndpoint {
  url: string;
  /** Client id and username (the locker id). */
  clientId: string;
  password: string;
  keepaliveSec: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** Filters subscribed at QoS 1 on every connect; a refused one ends the attempt. */
  subscriptions: readonly string[];
}

export interface ConnectionHandlers {
  /** Called before each attempt: the last will of that connection (retained, QoS 1). */
  willFor(): { topic: string; payload: string };
  /** Connected and subscribed. */
  onReady(): void;
  onMessage(topic: string, payload: Buffer, retained: boolean): void;
  /** A connection that was ready is gone. */
  onLost(): void;
}

/** A CONNECT without CONNACK this long is given up and tried again after the back-off. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** How long stop() waits for the broker to take the farewell message. */
const FAREWELL_MS = 2_000;
const SUBACK_REFUSED = 128;

export class MqttConnection {
  readonly #backoff: Backoff;
  readonly #errors: RateLimitedLog;
  #client: MqttClient | undefined;
  #ready = false;
  #running = false;
  #retry: unknown;

  constructor(
    private readonly endpoint: MqttEndpoint,
    private readonly handlers: ConnectionHandlers,
    private readonly logger: Logger,
    private readonly timers: Timers,
    random: () => number,
  ) {
    this.#backoff = new Backoff(endpoint.reconnectMinMs, endpoint.reconnectMaxMs, random);
    this.#errors = new RateLimitedLog(logger, 60_000);
  }

  /** Connected, subscribed, and accepting publishes. */
  get ready(): boolean {
    return this.#ready && this.#client?.connected === true;
  }

  /** Starts the first attempt; never waits for the broker. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#connect();
  }

  /** QoS 1; false (nothing sent) when not connected. */
  publish(topic: string, payload: string, retain = false): boolean {
    const client = this.#client;
    if (!client || !this.ready) return false;
    client.publish(topic, payload, { qos: 1, retain }, (err) => {
      if (err) this.logger.debug({ err: err.message, topic }, 'publish not confirmed; the stream resends it');
    });
    return true;
  }

  /** Ends the current connection and connects again at once (with a new will). */
  restart(): void {
    if (!this.#running) return;
    const client = this.#client;
    if (!client) return; // an attempt is already scheduled
    this.#drop(client);
    void closeClient(client);
    this.#connect();
  }

  /**
   * Stops reconnecting; publishes `farewell` (retained) first when connected, so that the cloud
   * learns of a planned stop at once, then disconnects.
   */
  async stop(farewell?: { topic: string; payload: string }): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.timers.clearTimeout(this.#retry);
    this.#retry = undefined;
    const client = this.#client;
    if (!client) return;
    if (farewell && this.ready) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, FAREWELL_MS);
        client.publish(farewell.topic, farewell.payload, { qos: 1, retain: true }, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.#drop(client);
    await closeClient(client);
  }

  #connect(): void {
    if (!this.#running) return;
    const { url, clientId, password, keepaliveSec, subscriptions } = this.endpoint;
    let will: { topic: string; payload: string };
    try {
      will = this.handlers.willFor();
    } catch (err) {
      this.logger.error({ err }, 'locker link: cannot prepare a connection; trying again later');
      this.#scheduleRetry();
      return;
    }
    const client = mqtt.connect(url, {
      manualConnect: true,
      clientId,
      username: clientId,
      password,
      protocolVersion: 4,
      clean: true,
      keepalive: keepaliveSec,
      connectTimeout: CONNECT_TIMEOUT_MS,
      // Reconnection is ours (a new client, a new will); nothing is queued while offline.
      reconnectPeriod: 0,
      resubscribe: false,
      queueQoSZero: false,
      will: { topic: will.topic, payload: Buffer.from(will.payload), qos: 1, retain: true },
    });
    this.#client = client;
    // Also before ready: a retained message may follow the SUBACK in the same read.
    client.on('message', (topic, payload, packet) => {
      if (this.#client === client) this.handlers.onMessage(topic, payload, packet.retain);
    });
    client.on('connect', () => {
      disableNagle(client);
      void this.#subscribe(client, subscriptions);
    });
    client.on('close', () => this.#onClose(client));
    client.on('error', (err: Error & { code?: unknown }) => {
      // Writes racing a planned stop fail by design (the stream has ended).
      if (!this.#running) return;
      const key = typeof err.code === 'string' || typeof err.code === 'number' ? String(err.code) : err.message;
      this.#errors.warn(key, { err: err.message, code: err.code }, 'locker link: cannot reach the broker');
    });
    client.connect();
    disableNagle(client);
  }

  async #subscribe(client: MqttClient, filters: readonly string[]): Promise<void> {
    try {
      const granted = await client.subscribeAsync([...filters], { qos: 1 });
      const refused = granted.filter((g) => g.qos === SUBACK_REFUSED).map((g) => g.topic);
      if (refused.length > 0) throw new Error(`the broker refused the subscription to ${refused.join(', ')}`);
    } catch (err) {
      if (this.#client !== client) return;
      this.logger.error({ err }, 'locker link: subscribing failed; connecting again later');
      client.end(true); // 'close' schedules the next attempt
      return;
    }
    if (this.#client !== client || !client.connected) return;
    this.#ready = true;
    this.#backoff.reset();
    this.logger.info({ url: redactUrl(this.endpoint.url) }, 'locker link connected');
    this.handlers.onReady();
  }

  #onClose(client: MqttClient): void {
    if (this.#client !== client) return;
    this.#drop(client);
    client.end(true);
    this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    if (!this.#running) return;
    this.#retry = this.timers.setTimeout(() => {
      this.#retry = undefined;
      this.#connect();
    }, this.#backoff.next());
  }

  /** Forgets the current client; tells the link when a ready connection went away. */
  #drop(client: MqttClient): void {
    if (this.#client !== client) return;
    const wasReady = this.#ready;
    this.#client = undefined;
    this.#ready = false;
    if (wasReady) {
      // A planned stop is not a fault worth a warning.
      if (this.#running) this.logger.warn('locker link disconnected');
      else this.logger.info('locker link closed');
      this.handlers.onLost();
    }
  }
}

/**
 * DISCONNECT (the will is dropped) when nothing is in flight; otherwise the socket is closed at
 * once rather than waiting for acks that may never come.
 */
function closeClient(client: MqttClient): Promise<void> {
  const force = !client.connected || Object.keys(client.outgoing).length > 0;
  return new Promise<void>((resolve) => {
    const guard = setTimeout(() => {
      client.stream?.destroy();
      resolve();
    }, FAREWELL_MS);
    client.end(force, () => {
      clearTimeout(guard);
      resolve();
    });
  });
}

export function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//');
}
