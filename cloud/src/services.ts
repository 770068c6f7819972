/** What every domain service gets from the composition root: database, time, randomness, settings, metrics. */
import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import type { CloudConfig } from './config.js';
import type { CloudDatabase } from './db/database.js';
import type { CloudMetrics } from './metrics/cloud-metrics.js';
import type { OutboxSignals } from './outbox/signals.js';
import type { RandomSource } from './random.js';
import type { RequestScope } from './request-scope.js';

export interface ServiceDeps {
  cdb: CloudDatabase;
  clock: Clock;
  random: RandomSource;
  signals: OutboxSignals;
  config: CloudConfig;
  logger: Logger;
  /** When this process started, on `clock` (the console tells a cloud restart from a locker's). */
  startedAt: number;
  /** The process's metrics (metrics/cloud-metrics.ts): each rule records its own. */
  metrics: CloudMetrics;
  /** The API call being served (request id, idempotent answer); absent for background work. */
  request?: RequestScope;
}
