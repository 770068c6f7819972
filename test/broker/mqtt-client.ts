/**
 * Small promise-based MQTT clients for broker and link tests: connect, record every message
 * received, wait for one that matches. Waits are bounded only to turn a hang into a failure.
 */
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { WAIT_BOUND_MS } from '../helpers/eventually.js';

export interface Received {
  topic: string;
  payload: string;
  retain: boolean;
  qos: number;
}

export interface TestClient {
  readonly client: MqttClient;
  readonly received: Received[];
  /** True once the broker closed the connection (or it failed). */
  readonly closed: boolean;
  waitFor(match: (m: Received) => boolean, what?: string): Promise<Received>;
  waitClosed(): Promise<void>;
  /** Subscribes at QoS 1; resolves with the granted QoS (128 = refused). */
  subscribe(filter: string): Promise<number>;
  publish(topic: string, payload: string | object, opts?: { retain?: boolean }): Promise<void>;
  end(): Promise<void>;
}

export interface Credentials {
  clientId: string;
  username: string;
  password: string;
  will?: IClientOptions['will'];
  clean?: boolean;
}

const WAIT_MS = WAIT_BOUND_MS;

function baseOptions(c: Credentials): IClientOptions {
  return {
    clientId: c.clientId,
    username: c.username,
    password: c.password,
    protocolVersion: 4,
    clean: c.clean ?? true,
    reconnectPeriod: 0,
    connectTimeout: WAIT_MS,
    ...(c.will ? { will: c.will } : {}),
  };
}

export async function connectClient(url: string, c: Credentials): Promise<TestClient> {
  const client = mqtt.connect(url, baseOptions(c));
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  let closed = false;
  client.on('message', (topic, payload, packet) => {
    received.push({ topic, payload: payload.toString('utf8'), retain: packet.retain, qos: packet.qos });
    for (const w of [...waiters]) w();
  });
  client.on('close', () => {
    closed = true;
    for (const w of [...waiters]) w();
  });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
    client.once('close', () => reject(new Error('connection closed before CONNACK')));
  });

  const waitUntil = <T>(check: () => T | undefined, what: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const done = () => {
        const hit = check();
        if (hit === undefined) return;
        cleanup();
        resolve(hit);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for ${what}`));
      }, WAIT_MS);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(done);
      };
      waiters.add(done);
      done();
    });

  return {
    client,
    received,
    get closed() {
      return closed;
    },
    waitFor: (match, what = 'a message') => waitUntil(() => received.find(match), what),
    waitClosed: () => waitUntil(() => (closed ? true : undefined), 'the connection to close').then(() => undefined),
    async subscribe(filter) {
      try {
        const granted = await client.subscribeAsync(filter, { qos: 1 });
        return granted[0]?.qos ?? 128;
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (typeof code === 'number') return code;
        // mqtt.js rejects a SUBACK whose only filter was refused, carrying the packet.
        const refused = (err as { packet?: { granted?: unknown[] } }).packet?.granted?.[0];
        if (typeof refused === 'number') return refused;
        throw err;
      }
    },
    async publish(topic, payload, opts) {
      const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
      await client.publishAsync(topic, text, { qos: 1, retain: opts?.retain ?? false });
    },
    async end() {
      await client.endAsync(true);
    },
  };
}

/** Connects expecting a refusal; resolves with the CONNACK return code. */
export async function connectRefused(url: string, c: Credentials): Promise<number> {
  const client = mqtt.connect(url, baseOptions(c));
  try {
    return await new Promise<number>((resolve, reject) => {
      client.once('connect', () => reject(new Error(`connection of ${c.clientId} was accepted`)));
      client.once('error', (err: Error & { code?: number }) => resolve(err.code ?? -1));
    });
  } finally {
    await client.endAsync(true);
  }
}

/**
 * Publishes without waiting for the broker's PUBACK: a broker that refuses a publish may close
 * the connection instead of acknowledging it (aedes does, Mosquitto acknowledges and drops it).
 */
export async function publishForbidden(c: TestClient, topic: string, payload: string): Promise<void> {
  const acked = c.publish(topic, payload).then(
    () => 'acked' as const,
    () => 'closed' as const,
  );
  const closedFirst = c.waitClosed().then(() => 'closed' as const);
  await Promise.race([acked, closedFirst]);
}
