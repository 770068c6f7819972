/**
 * The integrator's notification receiver: HTTPS with a certificate of its own CA (the fleet's
 * `caFile`), built with the client package's receiver kit, which checks the Basic credentials, the
 * signature and its timestamp window, parses the typed body and calls the handler once per
 * `X-Notification-Id`. What arrives is kept in order; `next` resolves when a matching notification
 * is (or already was) received, so the walk-through waits for events, never for time.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { notificationListener, type ReceivedNotification } from '../../packages/client/src/index.js';

export interface InboxOptions {
  port: number;
  cert: string;
  key: string;
  login: string;
  password: string;
  signingSecret: string;
}

interface Waiter {
  match: (n: ReceivedNotification) => boolean;
  resolve: (n: ReceivedNotification) => void;
}

export class Inbox {
  readonly received: ReceivedNotification[] = [];
  /** Notification ids the handler saw more than once: the kit must make this impossible. */
  readonly repeated: string[] = [];
  readonly #waiters = new Set<Waiter>();
  /** Notifications already handed to a waiter: each satisfies one wait only. */
  readonly #taken = new Set<ReceivedNotification>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(options: InboxOptions): Promise<Inbox> {
    // The listener exists before the server, the inbox after it listens: the handler finds it here.
    const made: { inbox?: Inbox } = {};
    const listener = notificationListener({ login: options.login, password: options.password, signingSecret: options.signingSecret }, (n) => {
      made.inbox!.#accept(n);
      return Promise.resolve();
    });
    const server = createServer({ cert: options.cert, key: options.key }, listener);
    server.listen(options.port, '127.0.0.1');
    await once(server, 'listening');
    made.inbox = new Inbox(server, `https://127.0.0.1:${(server.address() as AddressInfo).port}/receivers/sandbox-shop`);
    return made.inbox;
  }

  #accept(n: ReceivedNotification): void {
    if (this.received.some((r) => r.id === n.id)) this.repeated.push(n.id);
    this.received.push(n);
    for (const w of this.#waiters) {
      if (!this.#taken.has(n) && w.match(n)) {
        this.#taken.add(n);
        this.#waiters.delete(w);
        w.resolve(n);
      }
    }
  }

  /** The first notification not yet waited for that matches; fails after `timeoutMs` (a guard against a hang). */
  next(what: string, match: (n: ReceivedNotification) => boolean, timeoutMs: number): Promise<ReceivedNotification> {
    const already = this.received.find((n) => !this.#taken.has(n) && match(n));
    if (already) {
      this.#taken.add(already);
      return Promise.resolve(already);
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve: (n) => {
          clearTimeout(timer);
          resolve(n);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`no ${what} arrived within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  /** The notifications of one order, in arrival order. */
  of(externalId: string): ReceivedNotification[] {
    return this.received.filter((n) => n.body.id === externalId);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}
