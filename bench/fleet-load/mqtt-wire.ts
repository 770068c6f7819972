/**
 * The least MQTT 3.1.1 client a light locker needs, on one TCP socket and mqtt-packet's codec:
 * CONNECT with a retained will, SUBSCRIBE, PUBLISH at QoS 1 (PUBACKs are not awaited: delivery
 * rests on the link's numbered streams, as in the agent), PUBACK for what arrives at QoS 1, and
 * PINGREQ when asked. No timers of its own: the fleet drives keep-alive and connect timeouts for
 * thousands of connections from one sweep.
 */
import { connect, type Socket } from 'node:net';
import mqttPacket, { type IConnectPacket, type Packet } from 'mqtt-packet';

export interface WireEvents {
  /** CONNACK accepted (0) or refused (its return code). */
  onConnack(returnCode: number): void;
  /** The granted QoS of each filter of the SUBSCRIBE (128 = refused). */
  onSuback(granted: readonly number[]): void;
  onPublish(topic: string, payload: Buffer, retained: boolean): void;
  /** The socket closed (also after destroy()). */
  onClose(): void;
}

export interface WireConnect {
  host: string;
  port: number;
  clientId: string;
  password: string;
  keepaliveSec: number;
  will: { topic: string; payload: string };
}

export class MqttWire {
  readonly #socket: Socket;
  readonly #events: WireEvents;
  #messageId = 0;
  #closed = false;
  /** Date.now() of the last packet from the broker (the fleet's sweep judges a silent link by it). */
  lastHeardAt = Date.now();

  constructor(opts: WireConnect, events: WireEvents) {
    this.#events = events;
    const parser = mqttPacket.parser({ protocolVersion: 4 });
    parser.on('packet', (packet: Packet) => this.#onPacket(packet));
    parser.on('error', () => this.destroy());
    const connectPacket: IConnectPacket = {
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 4,
      clean: true,
      clientId: opts.clientId,
      username: opts.clientId,
      password: Buffer.from(opts.password),
      keepalive: opts.keepaliveSec,
      will: { topic: opts.will.topic, payload: Buffer.from(opts.will.payload), qos: 1, retain: true },
    };
    this.#socket = connect({ host: opts.host, port: opts.port, noDelay: true }, () => this.#write(connectPacket));
    this.#socket.on('data', (chunk: Buffer) => {
      this.lastHeardAt = Date.now();
      parser.parse(chunk);
    });
    this.#socket.on('error', () => undefined); // 'close' follows and says it all
    this.#socket.on('close', () => {
      this.#closed = true;
      this.#events.onClose();
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  subscribe(filters: readonly string[]): void {
    this.#write({ cmd: 'subscribe', messageId: this.#nextId(), subscriptions: filters.map((topic) => ({ topic, qos: 1 })) });
  }

  publish(topic: string, payload: string, retain = false): void {
    this.#write({ cmd: 'publish', topic, payload: Buffer.from(payload), qos: 1, retain, dup: false, messageId: this.#nextId() });
  }

  ping(): void {
    this.#write({ cmd: 'pingreq' });
  }

  /** DISCONNECT: the broker drops the will (a planned stop). */
  disconnect(): void {
    this.#write({ cmd: 'disconnect' });
    this.#socket.end();
  }

  /** Closes the socket at once: the broker publishes the will (a lost connection). */
  destroy(): void {
    this.#socket.destroy();
  }

  #nextId(): number {
    this.#messageId = (this.#messageId % 65_535) + 1;
    return this.#messageId;
  }

  #write(packet: Packet): void {
    if (this.#closed || this.#socket.destroyed) return;
    this.#socket.write(mqttPacket.generate(packet));
  }

  #onPacket(packet: Packet): void {
    // Only what a subscriber of QoS 1 gets; PUBACK and PINGRESP just refresh lastHeardAt.
    // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check
    switch (packet.cmd) {
      case 'connack':
        this.#events.onConnack(packet.returnCode ?? 0);
        return;
      case 'suback':
        this.#events.onSuback(packet.granted.map((g) => (typeof g === 'number' ? g : (g as { qos: number }).qos)));
        return;
      case 'publish':
        if (packet.qos > 0 && packet.messageId !== undefined) this.#write({ cmd: 'puback', messageId: packet.messageId });
        this.#events.onPublish(packet.topic, Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload), packet.retain);
        return;
      default:
        return;
    }
  }
}
