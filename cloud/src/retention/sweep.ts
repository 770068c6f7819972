/**
 * The retention sweep as a cloud part: a scheduler job (hourly by default) that deletes what is
 * past its horizon, table by table, in batches of short transactions (repositories/retention.ts
 * says what each rule keeps). Several cloud processes may sweep at once: a delete of rows another
 * process already deleted removes nothing.
 */
import type { Logger } from 'pino';
import type { PartDeps } from '../cloud-part.js';
import { transaction, type Tx } from '../db/transaction.js';
import { localDate } from '../lockers/locker-time.js';
import {
  deleteAlertsBefore,
  deleteDeliveredNotificationsBefore,
  deleteInboxEventsBefore,
  deleteLinkHistoryBefore,
  deleteRouteSheetsBefore,
} from '../repositories/retention.js';
import { ScheduledPart } from '../scheduled-part.js';
import { deleteFinishedOrdersBefore } from '../lifecycle/repository.js';
import type { RetentionSettings } from './settings.js';

const DAY_MS = 86_400_000;

/** Rows deleted per rule in one run. */
export type SweepReport = Record<'orders' | 'notifications' | 'inboxEvents' | 'routeSheets' | 'alerts' | 'linkHistory', number>;

export class RetentionSweep extends ScheduledPart<SweepReport> {
  readonly #deps: PartDeps;
  readonly #settings: RetentionSettings;
  readonly #log: Logger;

  constructor(deps: PartDeps, settings: RetentionSettings) {
    super('retention-sweep', deps.scheduler, { cron: settings.cron });
    this.#deps = deps;
    this.#settings = settings;
    this.#log = deps.logger.child({ part: 'retention' });
  }

  /** One run now (also what the schedule runs). */
  sweep(): Promise<SweepReport> {
    return this.runNow();
  }

  protected async run(): Promise<SweepReport> {
    const s = this.#settings;
    const now = this.#deps.clock.now();
    const ago = (days: number): number => now - days * DAY_MS;
    // Route dates are calendar days; the UTC date is a day's margin either way, which the horizon absorbs.
    const routeDate = localDate(ago(s.routeSheetDays), 'UTC');
    // Orders first: they take their delivered notifications with them.
    const report: SweepReport = {
      orders: await this.#batches((tx, n) => deleteFinishedOrdersBefore(tx, ago(s.finishedOrderDays), n)),
      notifications: await this.#batches((tx, n) => deleteDeliveredNotificationsBefore(tx, ago(s.deliveredNotificationDays), n)),
      inboxEvents: await this.#batches((tx, n) => deleteInboxEventsBefore(tx, ago(s.inboxEventDays), n)),
      routeSheets: await this.#batches((tx, n) => deleteRouteSheetsBefore(tx, routeDate, n)),
      alerts: await this.#batches((tx, n) => deleteAlertsBefore(tx, ago(s.alertDays), n)),
      linkHistory: await this.#batches((tx, n) => deleteLinkHistoryBefore(tx, ago(s.linkHistoryDays), n)),
    };
    if (Object.values(report).some((n) => n > 0)) this.#log.info({ deleted: report }, 'retention sweep');
    return report;
  }

  /** Runs `remove` in its own transaction until a batch comes back short or the run's bound is hit. */
  async #batches(remove: (tx: Tx, limit: number) => Promise<number>): Promise<number> {
    const { batchSize, maxBatchesPerRun } = this.#settings;
    let total = 0;
    for (let i = 0; i < maxBatchesPerRun; i++) {
      const n = await transaction(this.#deps.cdb, (tx) => remove(tx, batchSize));
      total += n;
      if (n < batchSize) break;
    }
    return total;
  }
}

export function createRetentionSweep(deps: PartDeps, settings: RetentionSettings): RetentionSweep {
  return new RetentionSweep(deps, settings);
}
