/**
 * The operator console's live feed: what changed, published in-process after the change
 * committed (locker presence and cell facts from the locker link, alerts, order transitions) and
 * read by `GET /operator/stream`. Each cloud process feeds its own streams with what it applied
 * itself; a console that must see every process's changes re-reads the views on reconnect.
 */
import { EventEmitter } from 'node:events';

export type LiveMessage =
  | { type: 'locker'; lockerId: number; cellId?: number; online?: boolean; fact?: string }
  | { type: 'alert'; alertId: number; lockerId: number; cellId: number | null; kind: string; severity: string; status: string; count: number }
  | { type: 'order'; orderId: string; lockerId: number; state: number; rule: string };

export class LiveFeed {
  readonly #events = new EventEmitter();

  constructor() {
    // One listener per open stream; the stream route bounds their number.
    this.#events.setMaxListeners(0);
  }

  publish(message: LiveMessage): void {
    this.#events.emit('message', message);
  }

  subscribe(listener: (message: LiveMessage) => void): () => void {
    this.#events.on('message', listener);
    return () => this.#events.off('message', listener);
  }

  get subscribers(): number {
    return this.#events.listenerCount('message');
  }
}
