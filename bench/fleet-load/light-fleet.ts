/**
 * Many light lockers in one process, one MQTT connection each, and one sweep timer for all of
 * them (keep-alive, connect timeouts, resends) instead of timers per locker. Used in-process by
 * tests and, several per machine, by the generator processes of the fleet scenario.
 */
import { LightLocker, newCounters, type LightLockerOptions, type LockerCounters } from './light-locker.js';

export interface FleetLocker {
  id: number;
  password: string;
}

export interface LightFleetOptions extends Omit<LightLockerOptions, 'random' | 'host' | 'port'> {
  /** mqtt://host:port of the broker. */
  url: string;
  /** Spreads the first connections over this long (ms), as lockers switched on over time. */
  rampMs: number;
  random?: () => number;
}

export interface FleetStats extends LockerCounters {
  lockers: number;
  /** Lockers whose current connection the cloud has answered. */
  online: number;
  /** Lockers whose applied command count reached `expectedApplied` of awaitApplied(). */
  appliedAtLeast: number;
  /** Orders whose `order.upsert` was applied once / more than once, over `watch`ed order ids. */
  upsertedOnce: number;
  upsertedTwice: number;
  unackedEvents: number;
}


export class LightFleet {
  readonly lockers: LightLocker[];
  #sweep: NodeJS.Timeout | undefined;
  readonly #rampMs: number;
  readonly #starts: NodeJS.Timeout[] = [];
  /** Per locker, the cseq it must reach (set by expectApplied()). */
  #targets = new Map<string, number>();
  /** External-id prefix of the orders whose upserts stats() counts. */
  #prefix: string | undefined;

  constructor(lockers: readonly FleetLocker[], opts: LightFleetOptions) {
    const url = new URL(opts.url);
    const lockerOpts: LightLockerOptions = {
      host: url.hostname,
      port: Number(url.port || 1883),
      keepaliveSec: opts.keepaliveSec,
      reconnectMinMs: opts.reconnectMinMs,
      reconnectMaxMs: opts.reconnectMaxMs,
      resendAfterMs: opts.resendAfterMs,
      connectTimeoutMs: opts.connectTimeoutMs,
      random: opts.random ?? Math.random,
      ...(opts.agentVersion === undefined ? {} : { agentVersion: opts.agentVersion }),
    };
    this.#rampMs = opts.rampMs;
    this.lockers = lockers.map((l) => new LightLocker(l.id, l.password, lockerOpts));
  }

  start(): void {
    this.lockers.forEach((locker, i) => {
      const at = this.lockers.length > 1 ? (this.#rampMs * i) / (this.lockers.length - 1) : 0;
      this.#starts.push(setTimeout(() => locker.start(), at));
    });
    this.#sweep ??= setInterval(() => {
      const now = Date.now();
      for (const locker of this.lockers) locker.tick(now);
    }, 500);
  }

  stop(): void {
    for (const t of this.#starts) clearTimeout(t);
    clearInterval(this.#sweep);
    this.#sweep = undefined;
    for (const locker of this.lockers) locker.stop();
  }

  /** Every connection lost at once (a broker restart, a network cut): the lockers reconnect with back-off. */
  cut(): void {
    for (const locker of this.lockers) locker.cut();
  }

  setDeaf(deaf: boolean): void {
    for (const locker of this.lockers) locker.deaf = deaf;
  }

  /** From now on stats() counts the lockers that applied `more` commands beyond what they have now. */
  expectApplied(more: number): void {
    this.#targets = new Map(this.lockers.map((l) => [l.id, l.appliedCseq + more]));
  }

  /** Counts, in stats(), how often each order whose external id starts so was upserted. */
  watchOrders(externalIdPrefix: string): void {
    this.#prefix = externalIdPrefix;
  }

  loadReserved(): number {
    return this.lockers.reduce((n, l) => n + l.loadReserved(), 0);
  }

  stats(): FleetStats {
    const sum = newCounters();
    let online = 0;
    let appliedAtLeast = 0;
    let upsertedOnce = 0;
    let upsertedTwice = 0;
    let unackedEvents = 0;
    for (const locker of this.lockers) {
      for (const key of Object.keys(sum) as (keyof LockerCounters)[]) sum[key] += locker.counters[key];
      if (locker.online) online++;
      const target = this.#targets.get(locker.id);
      if (target !== undefined && locker.appliedCseq >= target) appliedAtLeast++;
      unackedEvents += locker.unacked;
      if (this.#prefix !== undefined) {
        for (const order of locker.orders()) {
          if (!order.externalId.startsWith(this.#prefix)) continue;
          const n = locker.upsertsOf(order.orderId);
          if (n === 1) upsertedOnce++;
          else if (n > 1) upsertedTwice++;
        }
      }
    }
    return { ...sum, lockers: this.lockers.length, online, appliedAtLeast, upsertedOnce, upsertedTwice, unackedEvents };
  }
}
