/**
 * A relay for the cuttable TCP proxy that understands MQTT: it parses both directions of a
 * locker's connection with mqtt-packet (the parser mqtt.js and aedes use) and, while enabled,
 * delivers some PUBLISH packets of the link (`lockers/<id>/up` and `/down`) twice and holds some
 * back so that the next one overtakes them.
 *
 * Why this is faithful: QoS 1 is "at least once", so a broker or a network path may hand the same
 * message over twice, and nothing in MQTT orders what the cloud and the agent see across
 * reconnects, processes or brokers; the protocol's sequence numbers must cope with both. The
 * duplicate is an exact copy (same packet id); the receiver then acknowledges it twice, and the
 * relay swallows the second PUBACK so that the sender's session stays as MQTT allows it (one ack
 * per packet id). Only PUBLISH packets are duplicated or held; a DISCONNECT first lets a held
 * packet through, as a network would deliver it before the connection ends.
 */
import type { Socket } from 'node:net';
import { generate, parser, type Packet } from 'mqtt-packet';
import type { Random } from '../../sim/src/random.js';
import type { Relay } from '../helpers/tcp-proxy.js';

export interface ChaosOdds {
  /** Chance that a PUBLISH of the link is delivered twice. */
  duplicate: number;
  /** Chance that a PUBLISH of the link is held back for the next one to overtake. */
  reorder: number;
  /** Longest hold when no other PUBLISH comes to overtake, ms. */
  maxHoldMs: number;
}

export interface ChaosCounts {
  duplicated: { up: number; down: number };
  reordered: { up: number; down: number };
}

type Direction = 'up' | 'down';
const LINK_TOPIC = /^lockers\/[^/]+\/(up|down)$/;

/** One locker's chaos: the odds, whether it is on, and what it did; makes a relay per connection. */
export class MqttChaos {
  enabled = false;
  readonly counts: ChaosCounts = { duplicated: { up: 0, down: 0 }, reordered: { up: 0, down: 0 } };

  constructor(
    private readonly random: Random,
    private readonly odds: ChaosOdds,
  ) {}

  relay(): Relay {
    return new ChaosRelay(this, this.random, this.odds);
  }
}

interface Lane {
  dir: Direction;
  out: Socket;
  parse: ReturnType<typeof parser>;
  held: { packet: Packet; timer: NodeJS.Timeout } | null;
  /** PUBACKs of duplicated packets this lane carries back and must drop: packet id -> count. */
  swallow: Map<number, number>;
}

class ChaosRelay implements Relay {
  #lanes: Lane[] = [];
  #detach: (() => void)[] = [];
  #stopped = false;

  constructor(
    private readonly chaos: MqttChaos,
    private readonly random: Random,
    private readonly odds: ChaosOdds,
  ) {}

  start(agent: Socket, broker: Socket): void {
    const up = this.#lane('up', agent, broker);
    const down = this.#lane('down', broker, agent);
    // A duplicate sent up is acked twice down, and the other way round.
    this.#wire(up, down);
    this.#wire(down, up);
  }

  stop(): void {
    this.#stopped = true;
    for (const off of this.#detach.splice(0)) off();
    for (const lane of this.#lanes) if (lane.held) clearTimeout(lane.held.timer);
  }

  #lane(dir: Direction, from: Socket, out: Socket): Lane {
    const lane: Lane = { dir, out, parse: parser({ protocolVersion: 4 }), held: null, swallow: new Map() };
    const onData = (chunk: Buffer): void => {
      lane.parse.parse(chunk);
    };
    from.on('data', onData);
    this.#detach.push(() => from.off('data', onData));
    // A stream that does not parse is not ours to judge: close it like a broken network would.
    lane.parse.on('error', () => {
      from.destroy();
      out.destroy();
    });
    this.#lanes.push(lane);
    return lane;
  }

  #wire(lane: Lane, back: Lane): void {
    lane.parse.on('packet', (packet: Packet) => {
      if (this.#stopped) return;
      if (packet.cmd === 'puback' && packet.messageId !== undefined) {
        const n = lane.swallow.get(packet.messageId) ?? 0;
        if (n > 0) {
          if (n === 1) lane.swallow.delete(packet.messageId);
          else lane.swallow.set(packet.messageId, n - 1);
          return;
        }
      }
      if (packet.cmd !== 'publish' || !this.chaos.enabled || !LINK_TOPIC.test(packet.topic)) {
        if (packet.cmd === 'disconnect') this.#release(lane);
        this.#write(lane, packet);
        return;
      }
      const overtaken = lane.held;
      if (!overtaken && this.random() < this.odds.reorder) {
        const timer = setTimeout(() => this.#release(lane), 1 + Math.floor(this.random() * this.odds.maxHoldMs));
        lane.held = { packet, timer };
        return;
      }
      this.#write(lane, packet);
      if (this.random() < this.odds.duplicate) {
        this.chaos.counts.duplicated[lane.dir]++;
        if (packet.qos > 0 && packet.messageId !== undefined) back.swallow.set(packet.messageId, (back.swallow.get(packet.messageId) ?? 0) + 1);
        this.#write(lane, { ...packet, dup: true });
      }
      if (overtaken) {
        this.chaos.counts.reordered[lane.dir]++;
        this.#release(lane);
      }
    });
  }

  #release(lane: Lane): void {
    const held = lane.held;
    if (!held) return;
    lane.held = null;
    clearTimeout(held.timer);
    this.#write(lane, held.packet);
  }

  #write(lane: Lane, packet: Packet): void {
    if (this.#stopped || lane.out.destroyed) return;
    lane.out.write(generate(packet));
  }
}
