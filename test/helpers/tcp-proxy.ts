/**
 * A TCP relay between an agent and the broker that a test can cut: both ends at once (the broker
 * sees a lost client and publishes its will), only the agent's end (a half-open connection the
 * broker still believes in), or no new connections at all (the link is down). The bytes are
 * copied as they come, or moved by a `Relay` of the test's (one that understands MQTT, say).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

/** Moves the bytes of one relayed connection. */
export interface Relay {
  start(agent: Socket, broker: Socket): void;
  /** Stops moving bytes; the sockets stay as they are. */
  stop(): void;
}

/** Copies the bytes both ways as they come. */
export function copyRelay(): Relay {
  let ends: { agent: Socket; broker: Socket } | undefined;
  return {
    start(agent, broker) {
      ends = { agent, broker };
      agent.pipe(broker);
      broker.pipe(agent);
    },
    stop() {
      ends?.agent.unpipe(ends.broker);
      ends?.broker.unpipe(ends.agent);
    },
  };
}

interface Pair {
  agent: Socket;
  broker: Socket;
  relay: Relay;
  stranded: boolean;
}

export class TcpProxy {
  readonly #target: { host: string; port: number };
  readonly #pairs = new Set<Pair>();
  #server: Server | undefined;
  #port = 0;
  #blocked = false;

  readonly #relay: () => Relay;

  /** `url`: the broker, mqtt://host:port; `relay` makes the mover of each connection. */
  constructor(url: string, relay: () => Relay = copyRelay) {
    const u = new URL(url);
    this.#target = { host: u.hostname, port: Number(u.port || 1883) };
    this.#relay = relay;
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.#port}`;
  }

  /** Connections currently relayed (stranded ones not counted). */
  get open(): number {
    return [...this.#pairs].filter((p) => !p.stranded).length;
  }

  async start(): Promise<void> {
    const server = createServer((agent) => this.#accept(agent));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.#server = server;
    this.#port = (server.address() as { port: number }).port;
  }

  /** True between block() and unblock(): the link is meant to be down. */
  get blocked(): boolean {
    return this.#blocked;
  }

  /** New connections are closed at once until unblock(). */
  block(): void {
    this.#blocked = true;
  }

  unblock(): void {
    this.#blocked = false;
  }

  /** Closes both ends of every relayed connection abruptly. */
  cut(): void {
    for (const p of this.#pairs) {
      p.agent.destroy();
      p.broker.destroy();
    }
  }

  /** Closes the agent's end of every connection; the broker's end stays open and silent. */
  strand(): void {
    for (const p of this.#pairs) {
      if (p.stranded) continue;
      p.stranded = true;
      p.relay.stop();
      p.agent.destroy();
    }
  }

  /** Closes what strand() left open at the broker. */
  releaseStranded(): void {
    for (const p of this.#pairs) if (p.stranded) p.broker.destroy();
  }

  async stop(): Promise<void> {
    for (const p of this.#pairs) {
      p.agent.destroy();
      p.broker.destroy();
    }
    const server = this.#server;
    this.#server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #accept(agent: Socket): void {
    if (this.#blocked) {
      agent.destroy();
      return;
    }
    // A relay must not add Nagle delays the real path does not have.
    agent.setNoDelay(true);
    const broker = connect({ port: this.#target.port, host: this.#target.host, noDelay: true });
    const pair: Pair = { agent, broker, relay: this.#relay(), stranded: false };
    this.#pairs.add(pair);
    pair.relay.start(agent, broker);
    const closed = (): void => {
      if (!pair.stranded) {
        agent.destroy();
        broker.destroy();
      }
      if (agent.destroyed && broker.destroyed) this.#pairs.delete(pair);
    };
    agent.on('error', () => undefined);
    broker.on('error', () => undefined);
    agent.on('close', closed);
    broker.on('close', closed);
  }
}
