/**
 * A locker that speaks the sync protocol from a script: birth and last-will presence, hello,
 * event batches, command acks. Every message it receives on its down topic is parsed with the
 * shared schema, so a malformed message from the cloud fails the test.
 */
import {
  type DownMessage,
  type LockerEvent,
  PROTOCOL_VERSION,
  type UpMessage,
  downMessageSchema,
} from '../../shared/src/protocol.js';
import { topics } from '../../shared/src/topics.js';
import { type TestClient, connectClient } from '../broker/mqtt-client.js';

type Ack = Extract<DownMessage, { type: 'ack' }>;
type Commands = Extract<DownMessage, { type: 'commands' }>;
type SnapshotMsg = Extract<DownMessage, { type: 'snapshot' }>;

export function codeAttempt(dseq: number): LockerEvent {
  return { dseq, at: 1_000 + dseq, type: 'code.attempt', kind: 'courier', ok: dseq % 2 === 0 };
}

export class ScriptedLocker {
  readonly #c: TestClient;
  readonly lockerId: string;

  private constructor(c: TestClient, lockerId: string) {
    this.#c = c;
    this.lockerId = lockerId;
  }

  static async connect(url: string, lockerId: string, password: string, conn: number): Promise<ScriptedLocker> {
    const presence = (online: boolean) => ({ v: PROTOCOL_VERSION, online, conn, at: 5_000 });
    const c = await connectClient(url, {
      clientId: lockerId,
      username: lockerId,
      password,
      will: { topic: topics.presence(lockerId), payload: Buffer.from(JSON.stringify(presence(false))), qos: 1, retain: true },
    });
    await c.subscribe(topics.down(lockerId));
    await c.publish(topics.presence(lockerId), presence(true), { retain: true });
    return new ScriptedLocker(c, lockerId);
  }

  /** Every down message received so far, in order. */
  get down(): DownMessage[] {
    return this.#c.received.filter((m) => m.topic === topics.down(this.lockerId)).map((m) => downMessageSchema.parse(JSON.parse(m.payload)));
  }

  /** Position in the received messages, for waiting on what comes after an action. */
  mark(): number {
    return this.#c.received.length;
  }

  async #send(msg: UpMessage): Promise<void> {
    await this.#c.publish(topics.up(this.lockerId), msg);
  }

  hello(appliedCseq: number, ackedDseq: number, conn: number): Promise<void> {
    return this.#send({ v: PROTOCOL_VERSION, type: 'hello', lockerId: this.lockerId, appliedCseq, ackedDseq, conn });
  }

  events(items: LockerEvent[]): Promise<void> {
    return this.#send({ v: PROTOCOL_VERSION, type: 'events', items: items });
  }

  ack(appliedCseq: number): Promise<void> {
    return this.#send({ v: PROTOCOL_VERSION, type: 'ack', appliedCseq });
  }

  /** Publishes a presence message (retained), as a birth or a late last will would arrive. */
  presence(online: boolean, conn: number): Promise<void> {
    return this.#c.publish(topics.presence(this.lockerId), { v: PROTOCOL_VERSION, online, conn, at: 6_000 }, { retain: true });
  }

  /** Sends raw text on the up topic (malformed input). */
  raw(text: string): Promise<void> {
    return this.#c.publish(topics.up(this.lockerId), text);
  }

  /** Waits for a down message after `since` that matches. */
  async waitDown<T extends DownMessage>(since: number, match: (m: DownMessage) => m is T, what: string): Promise<T> {
    const hit = await this.#c.waitFor((m) => {
      const index = this.#c.received.indexOf(m);
      if (index < since || m.topic !== topics.down(this.lockerId)) return false;
      return match(downMessageSchema.parse(JSON.parse(m.payload)));
    }, what);
    return downMessageSchema.parse(JSON.parse(hit.payload)) as T;
  }

  waitAck(since: number, ackedDseq: number): Promise<Ack> {
    return this.waitDown(since, (m): m is Ack => m.type === 'ack' && m.ackedDseq === ackedDseq, `ack ${ackedDseq}`);
  }

  waitCommand(since: number, cseq: number): Promise<Commands> {
    return this.waitDown(since, (m): m is Commands => m.type === 'commands' && m.items.some((c) => c.cseq === cseq), `command ${cseq}`);
  }

  waitSnapshot(since: number): Promise<SnapshotMsg> {
    return this.waitDown(since, (m): m is SnapshotMsg => m.type === 'snapshot', 'a snapshot');
  }

  /** cseqs of the commands received after `since`, in arrival order. */
  commandsSince(since: number): number[] {
    return this.#c.received
      .slice(since)
      .filter((m) => m.topic === topics.down(this.lockerId))
      .map((m) => downMessageSchema.parse(JSON.parse(m.payload)))
      .flatMap((m) => (m.type === 'commands' ? m.items.map((c) => c.cseq) : []));
  }

  /**
   * Proves the cloud has published everything it meant to so far: a duplicate of an acked
   * event is answered by an ack that comes after every earlier message on the down topic.
   */
  async barrier(ackedDseq: number): Promise<void> {
    const since = this.mark();
    await this.events([codeAttempt(ackedDseq)]);
    await this.waitAck(since, ackedDseq);
  }

  /** Loses the connection without DISCONNECT: the broker publishes the last will. */
  async drop(): Promise<void> {
    this.#c.client.stream.destroy();
    await this.#c.waitClosed();
    await this.#c.end();
  }

  async end(): Promise<void> {
    await this.#c.end();
  }
}
