/**
 * The alert watch for lockers offline too long, as a cloud part: a scheduler job that raises the
 * critical alert `locker.offline` (naming the locker and since when) once a locker's link has
 * been offline for LOCKER_OFFLINE_ALERT_SECONDS, and resolves it when the locker is back online.
 * A link that drops and returns within the threshold raises nothing. The alert joins the
 * console's alert list and the live feed like any other. Several cloud processes may watch at
 * once: a locker with an active alert is not alerted again, and a second raise joins the first.
 */
import type { Logger } from 'pino';
import type { PartDeps } from '../cloud-part.js';
import { transaction } from '../db/transaction.js';
import { recordCloudAlert } from '../locker-events/alerts.js';
import type { LiveMessage } from '../operator/live-feed.js';
import { alertMessage } from '../locker-events/alerts.js';
import { resolveAlertsByKey } from '../repositories/alerts.js';
import { LOCKER_OFFLINE_KIND, offlineAlertsBackOnline, offlineUnalerted } from '../repositories/offline-lockers.js';
import { ScheduledPart } from '../scheduled-part.js';
import type { WatchSettings } from './settings.js';

/** Lockers handled per run; the rest wait for the next run. */
const BATCH = 500;

export interface OfflineWatchReport {
  raised: number;
  resolved: number;
}

export class OfflineWatch extends ScheduledPart<OfflineWatchReport> {
  readonly #deps: PartDeps;
  readonly #settings: WatchSettings;
  readonly #log: Logger;

  constructor(deps: PartDeps, settings: WatchSettings) {
    super('offline-watch', deps.scheduler, { everyMs: settings.intervalSeconds * 1000 });
    this.#deps = deps;
    this.#settings = settings;
    this.#log = deps.logger.child({ part: 'offline-watch' });
  }

  /** One run now (also what the schedule runs). */
  check(): Promise<OfflineWatchReport> {
    return this.runNow();
  }

  protected async run(): Promise<OfflineWatchReport> {
    const { cdb, clock, signals } = this.#deps;
    const now = clock.now();
    const live: LiveMessage[] = [];
    const resolved = await transaction(cdb, async (tx) => {
      const keys = await offlineAlertsBackOnline(tx, BATCH);
      return resolveAlertsByKey(tx, keys, now, 'cloud', 'back online');
    });
    live.push(...resolved.map(alertMessage));
    const late = await offlineUnalerted(cdb.db, now - this.#settings.lockerOfflineSeconds * 1000, BATCH);
    for (const l of late) {
      live.push(
        ...(await recordCloudAlert(cdb.db, this.#log, now, l.lockerId, {
          kind: LOCKER_OFFLINE_KIND,
          severity: 'critical',
          detail: { name: l.name, offlineSince: new Date(l.offlineSince).toISOString(), thresholdSeconds: this.#settings.lockerOfflineSeconds },
        })),
      );
    }
    for (const m of live) signals.live.publish(m);
    if (resolved.length > 0) this.#log.info({ lockerIds: resolved.map((a) => a.lockerId) }, 'lockers back online: offline alerts resolved');
    return { raised: late.length, resolved: resolved.length };
  }
}
