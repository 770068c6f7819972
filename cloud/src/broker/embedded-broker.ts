/**
 * The embedded MQTT broker (aedes 1.x) the cloud starts when no MQTT_URL is configured.
 * Authentication and authorization live in its hooks:
 * - a locker connects with clientId == username == its locker id and a password whose SHA-256
 *   hex is `lockers.mqtt_password_hash`; the clientId rule is what stops a locker from taking
 *   over another locker's session (aedes drops the older connection of a clientId); the hashes
 *   are checked from a copy in memory (./locker-credentials.ts), so a CONNECT is answered at once
 *   and never waits behind the database work of the lockers already connected;
 * - the cloud connects with its own username and password, clientId `<username>` or
 *   `<username>-<anything>` (one per cloud process);
 * - topics per ./acl.ts; a retained flag survives only on presence, so no command is ever retained.
 * Bounds per client: a locker's packet over `maxPacketBytes` (the cloud's over
 * MAX_DOWN_MESSAGE_BYTES) closes the connection at its header
 * (./packet-size-guard.ts) and backs the client off (./offender-backoff.ts); at most
 * MAX_INFLIGHT_INBOUND QoS 2 publishes awaiting PUBREL and QUEUE_BEFORE_CONNACK packets before
 * CONNACK; a client that does not read what it is sent is dropped after DRAIN_TIMEOUT_MS;
 * a byte rate per client (./inbound-rate-limit.ts); connections per address (./address-limits.ts); `maxSubscriptions` subscription requests per
 * connection (./subscription-budget.ts); and no persistent session (clean session only), so
 * nothing is ever queued in the broker for a client that is away.
 */
import { type AddressInfo, type Server, type Socket, createServer } from 'node:net';
import { createHash, timingSafeEqual } from 'node:crypto';
import { Aedes, type AedesPublishPacket, type Client, type PublishPacket, type Subscription } from 'aedes';
import type { Logger } from 'pino';
import { MAX_DOWN_MESSAGE_BYTES, MAX_MESSAGE_BYTES } from '../../../shared/src/protocol.js';
import type { CloudDatabase } from '../db/database.js';
import { AddressLimits } from './address-limits.js';
import { type BrokerIdentity, mayPublish, mayRead, mayRetain, maySubscribe } from './acl.js';
import { LockerCredentials } from './locker-credentials.js';
import { OffenderBackoff } from './offender-backoff.js';
import { limitInboundRate } from './inbound-rate-limit.js';
import { limitPacketSize } from './packet-size-guard.js';
import { indexedMemoryPersistence } from './retained-index.js';
import { SubscriptionBudget } from './subscription-budget.js';

/** The per-client bounds that are settings (MQTT_MAX_*); each defaults to DEFAULT_BROKER_LIMITS. */
export interface BrokerLimits {
  /** QoS 2 publishes a client may have awaiting PUBREL. */
  maxInflightMessages?: number;
  /** Subscription filters a connection may ask for over its life. */
  maxSubscriptions?: number;
  /** Connections of one address not yet authenticated. */
  maxPendingConnectionsPerAddress?: number;
  /** Connections of one address in all. */
  maxConnectionsPerAddress?: number;
  /** Bytes per second a client (not the cloud) may send, with a burst of two packets at the limit. */
  maxClientBytesPerSecond?: number;
}

export interface EmbeddedBrokerOptions extends BrokerLimits {
  db: CloudDatabase;
  logger: Logger;
  /** Interface to listen on, e.g. 0.0.0.0 or 127.0.0.1. */
  host: string;
  /** TCP port; 0 picks a free one (see `port` after start). */
  port: number;
  /** Name of the setting that holds the port, quoted in the start-up error when it is taken. */
  portSetting?: string;
  cloud: { username: string; password: string };
  /** How long the copy of the lockers' password hashes admits without being read again (ms). */
  credentialsMaxAgeMs?: number;
  /** Largest MQTT packet (remaining length) a client may send, bytes; default MAX_MESSAGE_BYTES. */
  maxPacketBytes?: number;
  /** A client's packet over the limit (its connection is being closed). */
  onOversized?: (clientId: string | undefined, bytes: number) => void;
  /** For the back-off's clock (tests). */
  now?: () => number;
}

/**
 * Defaults of the per-client bounds (the cloud's MQTT_MAX_* settings). A locker and the cloud
 * each subscribe to two filters per connection; a locker publishes with QoS 1 (its sync window is
 * at most a few hundred messages), QoS 2 is bounded for clients that use it anyway.
 */
export const DEFAULT_BROKER_LIMITS = {
  maxInflightMessages: 100,
  maxSubscriptions: 16,
  maxPendingConnectionsPerAddress: 512,
  maxConnectionsPerAddress: 10_000,
  maxClientBytesPerSecond: 1_048_576,
} as const;
/** Packets a client may send before its CONNACK (aedes's default is 42). */
const QUEUE_BEFORE_CONNACK = 16;
/** A client whose socket stays full this long is dropped, so it cannot hold the broker's buffers. */
const DRAIN_TIMEOUT_MS = 30_000;

/** CONNACK return codes of MQTT 3.1.1. */
const IDENTIFIER_REJECTED = 2;
const SERVER_UNAVAILABLE = 3;
const BAD_USERNAME_OR_PASSWORD = 4;

const LOCKER_ID = /^[1-9]\d{0,9}$/;

/**
 * Connections the kernel holds for accept() (capped by net.core.somaxconn). Node's default of
 * 511 overflows when a fleet reconnects at once: the kernel drops the handshake, the locker's
 * SYN is retried after 1, 3, 7 s..., and its 10 s connect timeout passes before the broker
 * ever sees it.
 */
const LISTEN_BACKLOG = 8_192;

type AuthError = Error & { returnCode: number };
function authError(returnCode: number, message: string): AuthError {
  return Object.assign(new Error(message), { returnCode });
}

export class EmbeddedBroker {
  readonly #opts: EmbeddedBrokerOptions;
  readonly #identities = new WeakMap<Client, BrokerIdentity>();
  readonly #credentials: LockerCredentials;
  readonly #backoff: OffenderBackoff;
  readonly #addresses: AddressLimits;
  readonly #subscriptions: SubscriptionBudget;
  #aedes: Aedes | undefined;
  #server: Server | undefined;
  #port: number | undefined;
  #starting: Promise<number> | undefined;

  constructor(opts: EmbeddedBrokerOptions) {
    this.#opts = opts;
    this.#credentials = new LockerCredentials(opts.db, { maxAgeMs: opts.credentialsMaxAgeMs });
    this.#backoff = new OffenderBackoff(opts.now);
    this.#addresses = new AddressLimits({
      maxPending: opts.maxPendingConnectionsPerAddress ?? DEFAULT_BROKER_LIMITS.maxPendingConnectionsPerAddress,
      maxTotal: opts.maxConnectionsPerAddress ?? DEFAULT_BROKER_LIMITS.maxConnectionsPerAddress,
    });
    this.#subscriptions = new SubscriptionBudget(opts.maxSubscriptions ?? DEFAULT_BROKER_LIMITS.maxSubscriptions);
  }

  /** The bound port (after start). */
  get port(): number {
    if (this.#port === undefined) throw new Error('embedded MQTT broker is not started');
    return this.#port;
  }

  /** `mqtt://host:port` for clients in this process. */
  get url(): string {
    const host = this.#opts.host === '0.0.0.0' || this.#opts.host === '::' ? '127.0.0.1' : this.#opts.host;
    return `mqtt://${host.includes(':') ? `[${host}]` : host}:${this.port}`;
  }

  /** Starts listening; resolves with the bound port. Idempotent. */
  start(): Promise<number> {
    this.#starting ??= this.#start().catch(async (err: unknown) => {
      this.#starting = undefined;
      await this.#closeAedes();
      throw err;
    });
    return this.#starting;
  }

  async #start(): Promise<number> {
    if (LOCKER_ID.test(this.#opts.cloud.username)) {
      throw new Error('the cloud MQTT username must not look like a locker id');
    }
    await this.#credentials.refresh();
    const aedes = await Aedes.createBroker({
      persistence: indexedMemoryPersistence(),
      maxInflightInbound: this.#opts.maxInflightMessages ?? DEFAULT_BROKER_LIMITS.maxInflightMessages,
      queueLimit: QUEUE_BEFORE_CONNACK,
      drainTimeout: DRAIN_TIMEOUT_MS,
      authenticate: (client, username, password, done) => {
        const admitted = (identity: BrokerIdentity): void => {
          this.#identities.set(client, identity);
          this.#addresses.admitted(client.conn as Socket);
          done(null, true);
        };
        const refused = (err: unknown): void => {
          const returnCode = (err as Partial<AuthError>).returnCode ?? SERVER_UNAVAILABLE;
          if (returnCode === SERVER_UNAVAILABLE && !(err as { backoff?: boolean }).backoff) this.#opts.logger.error({ err }, 'mqtt authentication failed');
          else this.#opts.logger.warn({ clientId: client.id, username, reason: (err as Error).message }, 'mqtt connection refused');
          done(authError(returnCode, (err as Error).message), false);
        };
        // The common case, a known locker with its password, is answered in this turn.
        let now: BrokerIdentity | undefined;
        try {
          now = this.#authenticateNow(client, username, password);
        } catch (err) {
          refused(err);
          return;
        }
        if (now) admitted(now);
        else this.#authenticate(client, username, password).then(admitted, refused);
      },
      authorizePublish: (client, packet, done) => done(this.#authorizePublish(client, packet)),
      authorizeSubscribe: (client, sub, done) => done(null, this.#authorizeSubscribe(client, sub)),
      authorizeForward: (client, packet) => this.#authorizeForward(client, packet),
    });
    this.#aedes = aedes;
    aedes.on('clientError', (client, err) => this.#opts.logger.debug({ clientId: client.id, err }, 'mqtt client error'));

    // noDelay: see shared/src/mqtt-nodelay.ts.
    const maxPacketBytes = this.#opts.maxPacketBytes ?? MAX_MESSAGE_BYTES;
    const bytesPerSecond = this.#opts.maxClientBytesPerSecond ?? DEFAULT_BROKER_LIMITS.maxClientBytesPerSecond;
    const server = createServer({ noDelay: true }, (socket) => {
      if (!this.#addresses.accept(socket)) {
        this.#opts.logger.warn({ address: socket.remoteAddress }, 'mqtt connection closed: too many unauthenticated connections from its address');
        socket.destroy();
        return;
      }
      // The cloud's own connection publishes the down messages, bounded by MAX_DOWN_MESSAGE_BYTES.
      const limitOf = (client: Client): number => (this.#identities.get(client)?.kind === 'cloud' ? MAX_DOWN_MESSAGE_BYTES : maxPacketBytes);
      const client = aedes.handle(socket);
      limitPacketSize(client, limitOf, (c, bytes, limit) => this.#oversized(c, bytes, limit));
      limitInboundRate(client, {
        bytesPerSecond,
        burstBytes: 2 * maxPacketBytes,
        applies: (c) => this.#identities.get(c)?.kind !== 'cloud',
        onThrottled: (c, waitMs) => this.#opts.logger.debug({ clientId: c.id, waitMs }, 'mqtt client over its byte rate: reading paused'),
      });
    });
    this.#server = server;
    const { host, port } = this.#opts;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException) => {
        server.off('listening', onListening);
        const setting = this.#opts.portSetting ?? 'MQTT_BROKER_PORT';
        const why = err.code === 'EADDRINUSE' ? 'the port is already in use' : err.code === 'EACCES' ? 'permission denied' : err.message;
        reject(new Error(`embedded MQTT broker cannot listen on ${host}:${port} (${setting}): ${why}`, { cause: err }));
      };
      const onListening = () => {
        server.off('error', onError);
        resolve();
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen({ host, port, backlog: LISTEN_BACKLOG });
    }).catch((err: unknown) => {
      this.#server = undefined;
      throw err;
    });
    server.on('error', (err) => this.#opts.logger.error({ err }, 'embedded MQTT broker server error'));
    this.#port = (server.address() as AddressInfo).port;
    this.#opts.logger.info({ host, port: this.#port }, 'embedded MQTT broker listening');
    return this.#port;
  }

  /** Disconnects every client and stops listening. Idempotent. */
  async stop(): Promise<void> {
    const starting = this.#starting;
    if (!starting) return;
    await starting.catch(() => undefined);
    this.#starting = undefined;
    const server = this.#server;
    this.#server = undefined;
    await this.#closeAedes();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    this.#port = undefined;
  }

  async #closeAedes(): Promise<void> {
    const aedes = this.#aedes;
    this.#aedes = undefined;
    if (aedes && !aedes.closed) await new Promise<void>((resolve) => aedes.close(() => resolve()));
  }

  #oversized(client: Client, bytes: number, limit: number): void {
    const clientId = (client.id as string | undefined) || undefined;
    const backoffMs = clientId ? this.#backoff.offended(clientId) : 0;
    this.#opts.logger.warn({ clientId, bytes, limit, backoffMs }, 'mqtt packet over the size limit: connection closed');
    this.#opts.onOversized?.(clientId, bytes);
  }

  /**
   * The checks that need no database: throws a refusal, returns the identity when the answer is
   * known now, undefined when the locker's hash has to be read (#authenticate).
   */
  #authenticateNow(client: Client, username: string | undefined, password: Buffer | undefined): BrokerIdentity | undefined {
    if (!username || !password) throw authError(BAD_USERNAME_OR_PASSWORD, 'username and password required');
    // Only clean sessions: a persistent one would queue QoS 1 messages for an absent client without bound.
    if (!client.clean) throw authError(IDENTIFIER_REJECTED, 'persistent sessions are not kept: connect with clean session');
    if (!this.#addresses.mayAdmit(client.conn as Socket)) throw authError(SERVER_UNAVAILABLE, 'too many connections from this address');
    const waitMs = this.#backoff.waitFor(client.id);
    if (waitMs > 0) throw Object.assign(authError(SERVER_UNAVAILABLE, `backing off after an oversized packet: ${Math.ceil(waitMs / 1000)} s`), { backoff: true });
    const cloud = this.#opts.cloud;
    if (username === cloud.username) {
      if (!sameSecret(password, cloud.password)) throw authError(BAD_USERNAME_OR_PASSWORD, 'bad username or password');
      if (client.id !== username && !client.id.startsWith(`${username}-`)) {
        throw authError(IDENTIFIER_REJECTED, 'cloud client id must be the cloud username or start with it and a dash');
      }
      return { kind: 'cloud' };
    }
    if (!LOCKER_ID.test(username)) throw authError(BAD_USERNAME_OR_PASSWORD, 'bad username or password');
    if (!this.#credentials.checkNow(Number(username), password)) return undefined;
    return lockerIdentity(client, username);
  }

  async #authenticate(client: Client, username: string | undefined, password: Buffer | undefined): Promise<BrokerIdentity> {
    const now = this.#authenticateNow(client, username, password);
    if (now) return now;
    // #authenticateNow returned undefined only for a locker id with a password.
    if (!(await this.#credentials.check(Number(username), password!))) throw authError(BAD_USERNAME_OR_PASSWORD, 'bad username or password');
    return lockerIdentity(client, username!);
  }

  #authorizePublish(client: Client | null, packet: PublishPacket): Error | null {
    // Publishes without a client come from the broker itself ($SYS heartbeats).
    if (!client) return null;
    const who = this.#identities.get(client);
    if (!who || !mayPublish(who, packet.topic)) {
      this.#opts.logger.warn({ clientId: client.id, topic: packet.topic }, 'mqtt publish refused');
      return new Error('publish not authorized');
    }
    if (packet.retain && !mayRetain(packet.topic)) packet.retain = false;
    return null;
  }

  #authorizeSubscribe(client: Client, sub: Subscription): Subscription | null {
    const who = this.#identities.get(client);
    if (!this.#subscriptions.spend(client)) {
      this.#opts.logger.warn({ clientId: client.id, filter: sub.topic }, 'mqtt subscription refused: too many subscription requests on this connection');
      return null;
    }
    if (who && maySubscribe(who, sub.topic)) return sub;
    this.#opts.logger.warn({ clientId: client.id, filter: sub.topic }, 'mqtt subscription refused');
    return null;
  }

  #authorizeForward(client: Client, packet: AedesPublishPacket): AedesPublishPacket | null {
    const who = this.#identities.get(client);
    if (!who || !mayRead(who, packet.topic)) return null;
    if (packet.retain && !mayRetain(packet.topic)) return null;
    return packet;
  }
}

function lockerIdentity(client: Client, username: string): BrokerIdentity {
  if (client.id !== username) throw authError(IDENTIFIER_REJECTED, 'locker client id must equal its username');
  return { kind: 'locker', lockerId: username };
}

function sameSecret(given: Buffer, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
