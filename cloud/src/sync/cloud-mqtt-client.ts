/**
 * The cloud's MQTT connection for the locker link (mqtt.js, MQTT 3.1.1). Handlers are attached
 * before connecting; subscriptions are made again on every connect (clean session) and a refused
 * one is an error. Publishing happens only while connected (not only once every subscription is
 * granted: an answer to what already arrived goes out at once) and never waits for the broker:
 * delivery rests on the command log and the agent's acks, not on mqtt.js's in-memory store.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { disableNagle } from '../../../shared/src/mqtt-nodelay.js';
import type { Logger } from 'pino';
import { cloudSubscriptions, sharedSubscription } from '../../../shared/src/topics.js';

export interface MqttEndpoint {
  /** mqtt://host:port or mqtts://host:port */
  url: string;
  username: string;
  password: string;
  /** Unique per cloud process; on the embedded broker it must be `<username>` or `<username>-...`. */
  clientId: string;
  /**
   * Shared-subscription group for the up stream (`$share/<group>/lockers/+/up`), for brokers that
   * have them (Mosquitto 2, EMQX): each event batch then reaches one cloud process. Presence is
   * always subscribed plainly, so every process sees the retained state.
   */
  sharedGroup?: string | undefined;
}

export interface CloudMqttClientOptions {
  endpoint: MqttEndpoint;
  logger: Logger;
  onMessage(topic: string, payload: Buffer, retained: boolean): void;
  /** After every (re)connect, once the subscriptions are in place. */
  onReady(): void;
  /** How long start() keeps trying to reach the broker. */
  connectTimeoutMs: number;
  /** Pause between reconnect attempts. */
  reconnectPeriodMs: number;
}

export class CloudMqttClient {
  readonly #opts: CloudMqttClientOptions;
  #client: MqttClient | undefined;
  #ready = false;
  #starting: Promise<void> | undefined;

  constructor(opts: CloudMqttClientOptions) {
    this.#opts = opts;
  }

  get ready(): boolean {
    return this.#ready && !!this.#client?.connected;
  }

  get filters(): string[] {
    const group = this.#opts.endpoint.sharedGroup;
    return [group ? sharedSubscription(group, cloudSubscriptions.up) : cloudSubscriptions.up, cloudSubscriptions.presence];
  }

  start(): Promise<void> {
    this.#starting ??= this.#start().catch(async (err: unknown) => {
      await this.#end();
      this.#starting = undefined;
      throw err;
    });
    return this.#starting;
  }

  #start(): Promise<void> {
    const { endpoint, logger } = this.#opts;
    const client = mqtt.connect(endpoint.url, {
      manualConnect: true,
      clientId: endpoint.clientId,
      username: endpoint.username,
      password: endpoint.password,
      protocolVersion: 4,
      clean: true,
      resubscribe: false,
      queueQoSZero: false,
      keepalive: 30,
      reconnectPeriod: this.#opts.reconnectPeriodMs,
      connectTimeout: Math.min(this.#opts.connectTimeoutMs, 30_000),
    });
    this.#client = client;

    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (err?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
      const timer = setTimeout(
        () => settle(new Error(`cannot reach the MQTT broker at ${redactUrl(endpoint.url)} within ${this.#opts.connectTimeoutMs} ms`)),
        this.#opts.connectTimeoutMs,
      );

      client.on('message', (topic, payload, packet) => this.#opts.onMessage(topic, payload, packet.retain));
      client.on('connect', () => {
        disableNagle(client);
        this.#subscribe(client).then(
          () => {
            this.#ready = true;
            logger.info({ url: redactUrl(endpoint.url), clientId: endpoint.clientId }, 'locker link connected');
            settle();
            this.#opts.onReady();
          },
          (err: Error) => {
            logger.error({ err }, 'locker link subscription failed');
            settle(err);
          },
        );
      });
      client.on('close', () => {
        if (this.#ready) logger.warn('locker link disconnected from the MQTT broker');
        this.#ready = false;
      });
      client.on('error', (err: Error & { code?: unknown }) => {
        // A refused CONNACK (bad credentials, client id) will not fix itself: fail the start.
        if (typeof err.code === 'number' && err.code >= 1 && err.code <= 5) {
          settle(new Error(`the MQTT broker refused the cloud's connection (CONNACK ${err.code}: ${err.message})`));
        }
        logger.warn({ err }, 'locker link MQTT error');
      });
      client.connect();
      disableNagle(client);
    });
  }

  async #subscribe(client: MqttClient): Promise<void> {
    for (const filter of this.filters) {
      try {
        await client.subscribeAsync(filter, { qos: 1 });
      } catch (err) {
        throw new Error(`the MQTT broker refused the subscription ${filter}`, { cause: err });
      }
    }
  }

  /**
   * QoS 1, never retained; false when not connected (the command log keeps what was not sent).
   * Connected is enough: a hello can arrive once the first subscription is granted, before the
   * others are, and its answer must not wait for the resend.
   */
  publish(topic: string, payload: string): boolean {
    const client = this.#client;
    if (!client?.connected) return false;
    client.publish(topic, payload, { qos: 1, retain: false }, (err) => {
      if (err) this.#opts.logger.warn({ err, topic }, 'locker link publish failed');
    });
    return true;
  }

  async stop(): Promise<void> {
    const starting = this.#starting;
    if (!starting) return;
    await starting.catch(() => undefined);
    this.#starting = undefined;
    await this.#end();
  }

  async #end(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#ready = false;
    if (client) await client.endAsync(true);
  }
}

function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//');
}
