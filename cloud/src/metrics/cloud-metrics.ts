/**
 * The cloud process's metrics: one prom-client registry per running cloud (several clouds in one
 * test process never share counters), made of one module per concern, each recorded where its
 * rule lives: the HTTP hook (http.ts), the reservation path (reservations.ts), the locker events'
 * apply (locker-events.ts), notification delivery (notifications.ts), the guard (guard.ts), and
 * the gauges read on scrape (fleet-state.ts), the locker link's refusals (link.ts), the sandbox lockers refused a slot (sandbox.ts), plus the process metrics of prom-client.
 * Served at GET /metrics (http/routes/metrics.ts); every metric is listed in docs/operations.md.
 */
import { Registry, collectDefaultMetrics } from 'prom-client';
import { FleetStateMetrics } from './fleet-state.js';
import { GuardMetrics } from './guard.js';
import { HttpMetrics } from './http.js';
import { LinkMetrics } from './link.js';
import { LockerEventMetrics } from './locker-events.js';
import { NotificationMetrics } from './notifications.js';
import { ReservationMetrics } from './reservations.js';
import { SandboxMetrics } from './sandbox.js';
import { UpdateMetrics } from './updates.js';

export interface CloudMetrics {
  readonly registry: Registry;
  readonly http: HttpMetrics;
  readonly reservations: ReservationMetrics;
  readonly lockerEvents: LockerEventMetrics;
  readonly notifications: NotificationMetrics;
  readonly guard: GuardMetrics;
  readonly fleetState: FleetStateMetrics;
  readonly updates: UpdateMetrics;
  readonly link: LinkMetrics;
  readonly sandbox: SandboxMetrics;
}

export function createCloudMetrics(): CloudMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    http: new HttpMetrics(registry),
    reservations: new ReservationMetrics(registry),
    lockerEvents: new LockerEventMetrics(registry),
    notifications: new NotificationMetrics(registry),
    guard: new GuardMetrics(registry),
    fleetState: new FleetStateMetrics(registry),
    updates: new UpdateMetrics(registry),
    link: new LinkMetrics(registry),
    sandbox: new SandboxMetrics(registry),
  };
}
