/**
 * Gauges read on scrape (prom-client `collect()`), never per request: the dependencies' health
 * (database up and ping time, broker link up) and the fleet's aggregates from the database
 * (repositories/vitals.ts: lockers online, each active locker's link, commands pending,
 * notification backlog, lockers whose health report shows faults, the console's open alerts). One
 * scrape runs the queries once, shared by every gauge. The link per locker and the open alerts
 * carry a locker label, bounded by the fleet (and the alert kinds), so that an alert can name the
 * locker: Alertmanager pages on what the console shows.
 *
 * Commands pending and the age of the oldest unacked command are distributions ACROSS LOCKERS
 * (one observation per locker with pending commands), not a series per locker: each scrape
 * rebuilds the histogram from the current state, so `_count` is the number of such lockers and
 * `count - bucket{le="600"}` the lockers with a command unacked for over 10 minutes. They are
 * snapshots: read them as they are, never through rate().
 */
import { Gauge, Histogram, type Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import { timedPing, type DependencySources } from '../health/dependency-checks.js';
import { fleetVitals, type FleetVitals } from '../repositories/vitals.js';

export interface ScrapeSources extends DependencySources {
  clock: Clock;
}

interface Snapshot {
  dbUp: boolean;
  pingSeconds: number;
  brokerUp: boolean;
  vitals: FleetVitals | null;
  now: number;
}

/** Scrapes closer together than this share one snapshot (every gauge asks for it). */
const SNAPSHOT_REUSE_MS = 500;

export class FleetStateMetrics {
  #sources: ScrapeSources | undefined;
  // Without the database the aggregate gauges keep their last values; cloud_database_up says why.
  #last: { at: number; snapshot: Promise<Snapshot> } | undefined;

  constructor(registry: Registry) {
    const registers = [registry];
    const snapshot = (): Promise<Snapshot | undefined> => this.#snapshot();
    const gauge = (name: string, help: string, set: (g: Gauge, s: Snapshot) => void, labelNames: string[] = []): void => {
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          const s = await snapshot();
          if (s) set(this, s);
        },
      });
    };
    gauge('cloud_database_up', 'Whether the database answered a ping within 2 s at the scrape (1) or not (0)', (g, s) => g.set(s.dbUp ? 1 : 0));
    gauge('cloud_database_ping_seconds', 'Time the database took to answer the scrape’s ping', (g, s) => g.set(s.pingSeconds));
    gauge('cloud_broker_up', 'Whether the locker link is connected to the MQTT broker (0 also when this process runs no link)', (g, s) => g.set(s.brokerUp ? 1 : 0));
    gauge('cloud_lockers', 'Lockers of the fleet', (g, s) => s.vitals && g.set(s.vitals.lockers));
    gauge('cloud_lockers_online', 'Lockers whose agent is connected (presence)', (g, s) => s.vitals && g.set(s.vitals.lockersOnline));
    gauge(
      'cloud_locker_online',
      "An active locker's link as the cloud sees it (presence): 1 connected, 0 not; one series per locker, so an alert names it",
      (g, s) => {
        if (!s.vitals) return;
        g.reset();
        for (const l of s.vitals.lockerLinks) g.set({ locker: String(l.lockerId), name: l.name }, l.online ? 1 : 0);
      },
      ['locker', 'name'],
    );
    gauge(
      'cloud_alerts_open',
      "The console's unresolved alerts by locker, kind and severity; attended=\"false\": nobody acknowledged or took it yet",
      (g, s) => {
        if (!s.vitals) return;
        g.reset();
        for (const a of s.vitals.openAlerts) g.set({ locker: String(a.lockerId), kind: a.kind, severity: a.severity, attended: String(a.attended) }, a.count);
      },
      ['locker', 'kind', 'severity', 'attended'],
    );
    gauge('cloud_lockers_health_reporting', 'Lockers that sent a health report', (g, s) => s.vitals && g.set(s.vitals.lockersReporting));
    gauge('cloud_lockers_door_faults', 'Lockers whose latest health report counts door faults', (g, s) => s.vitals && g.set(s.vitals.lockersWithDoorFaults));
    gauge('cloud_lockers_board_errors', 'Lockers whose latest health report counts board errors', (g, s) => s.vitals && g.set(s.vitals.lockersWithBoardErrors));
    gauge(
      'cloud_notification_backlog',
      'Undelivered notifications, by marketplace',
      (g, s) => {
        g.reset();
        for (const b of s.vitals?.notificationBacklog ?? []) g.set({ marketplace: b.marketplaceId }, b.count);
      },
      ['marketplace'],
    );
    gauge(
      'cloud_notification_backlog_oldest_age_seconds',
      'Age of the oldest undelivered notification, by marketplace',
      (g, s) => {
        g.reset();
        for (const b of s.vitals?.notificationBacklog ?? []) g.set({ marketplace: b.marketplaceId }, Math.max(0, (s.now - b.oldestAt) / 1000));
      },
      ['marketplace'],
    );
    const distribution = (name: string, help: string, buckets: number[], values: (s: Snapshot) => number[]): void => {
      new Histogram({
        name,
        help,
        buckets,
        registers,
        async collect() {
          const s = await snapshot();
          this.reset();
          for (const v of s ? values(s) : []) this.observe(v);
        },
      });
    };
    distribution(
      'cloud_locker_commands_pending',
      'Commands not yet applied by the agent, one observation per locker that has any (a snapshot at the scrape)',
      [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
      (s) => s.vitals?.pendingCommands.map((p) => p.count) ?? [],
    );
    distribution(
      'cloud_locker_oldest_unacked_command_age_seconds',
      'Age of the oldest command the agent has not applied, one observation per locker that has any (a snapshot at the scrape)',
      [10, 30, 60, 300, 600, 1800, 3600, 6 * 3600, 86_400, 7 * 86_400],
      (s) => s.vitals?.pendingCommands.map((p) => Math.max(0, (s.now - p.oldestAt) / 1000)) ?? [],
    );
  }

  /** The running cloud's database, link and fleet; before this the gauges report nothing. */
  watch(sources: ScrapeSources): void {
    this.#sources = sources;
  }

  #snapshot(): Promise<Snapshot | undefined> {
    const sources = this.#sources;
    if (!sources) return Promise.resolve(undefined);
    const at = performance.now();
    if (this.#last && at - this.#last.at < SNAPSHOT_REUSE_MS) return this.#last.snapshot;
    const snapshot = this.#take(sources);
    this.#last = { at, snapshot };
    return snapshot;
  }

  async #take(sources: ScrapeSources): Promise<Snapshot> {
    const ping = await timedPing(sources.cdb);
    const brokerUp = sources.brokerConnected() === true;
    // Without the database the aggregates are left out rather than failing the whole scrape.
    const vitals = ping.up ? await fleetVitals(sources.cdb.probes).catch(() => null) : null;
    return { dbUp: ping.up, pingSeconds: ping.latencyMs / 1000, brokerUp, vitals, now: sources.clock.now() };
  }
}

