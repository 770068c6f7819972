/** What every handler of a locker fact gets: the event's transaction, the locker and the deps. */
import type { Logger } from 'pino';
import type { LockerEvent } from '../../../shared/src/protocol.js';
import type { AllocationOptions } from '../allocation/options.js';
import type { Clock } from '../clock.js';
import type { Tx } from '../db/transaction.js';
import type { EventBatch } from '../sync/up-stream.js';
import type { CloudMetrics } from '../metrics/cloud-metrics.js';
import type { ReservationRule } from '../orders/intent.js';
import type { RandomSource } from '../random.js';
import type { Locker } from '../repositories/lockers.js';
import type { LiveFeed, LiveMessage } from '../operator/live-feed.js';

export interface LockerEventDeps {
  clock: Clock;
  random: RandomSource;
  logger: Logger;
  /** Counts the events applied (absent in tests that do not look). */
  metrics?: Pick<CloudMetrics, 'lockerEvents'>;
  /** `reservationGraceMinutes`: for `loadableUntil` of the orders' upserts (none without it). */
  config: { pickupCodeLength: number; allocation: AllocationOptions; reservationGraceMinutes?: number };
  /** Operators watching live; told after the event's transaction committed. */
  signals?: { live: LiveFeed };
}

export interface EventContext<E extends LockerEvent = LockerEvent> {
  tx: Tx;
  /** The events applied with this one (sync/up-stream.ts): rows written once for them all. */
  batch: EventBatch;
  locker: Locker;
  event: E;
  /** Cloud time of applying the fact (state changes); the fact's own time is `event.at`. */
  now: number;
  deps: LockerEventDeps;
  log: Logger;
  /** Other lockers that got commands (pushed at once by the link). */
  commandsFor: Set<number>;
  /** What operators watching live are told once the event's transaction committed. */
  live: LiveMessage[];
}

export type EventOf<T extends LockerEvent['type']> = Extract<LockerEvent, { type: T }>;

/** The rule of the locker's reservations, when the cloud's release grace is known. */
export function reservationRule(ctx: EventContext): ReservationRule | undefined {
  const grace = ctx.deps.config.reservationGraceMinutes;
  return grace === undefined ? undefined : { timezone: ctx.locker.timezone, graceMinutes: grace };
}
