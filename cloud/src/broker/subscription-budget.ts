/**
 * Subscription requests per connection: every filter of every SUBSCRIBE counts, granted or not,
 * so neither many filters nor the same filter asked thousands of times (each answered with the
 * retained messages it matches) gets past the budget. A locker and the cloud each ask for two
 * filters per connection; a reconnect starts a new budget. Beyond it, each filter is refused with
 * the SUBACK failure code (0x80).
 */
import type { Client } from 'aedes';

export class SubscriptionBudget {
  readonly #max: number;
  readonly #spent = new WeakMap<Client, number>();

  constructor(max: number) {
    this.#max = max;
  }

  /** Counts one filter of `client`; false when its budget was already spent. */
  spend(client: Client): boolean {
    const spent = this.#spent.get(client) ?? 0;
    if (spent >= this.#max) return false;
    this.#spent.set(client, spent + 1);
    return true;
  }
}
