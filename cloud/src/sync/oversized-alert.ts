/**
 * A locker's message refused for its size, wherever it was stopped (the embedded broker at the
 * packet's header, or the locker link before parsing): counted in
 * `cloud_mqtt_oversized_messages_total` and raised as the operator alert `mqtt.oversized` on the
 * locker (repeats join one alert; its count says how often).
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { CloudDatabase } from '../db/database.js';
import { recordCloudAlert } from '../locker-events/alerts.js';
import type { LinkMetrics, OversizedAt } from '../metrics/link.js';
import type { OutboxSignals } from '../outbox/signals.js';

export interface OversizedAlertDeps {
  db: CloudDatabase;
  clock: Clock;
  logger: Logger;
  signals: OutboxSignals;
  metrics?: LinkMetrics | undefined;
}

const LOCKER_ID = /^[1-9]\d{0,9}$/;

export function oversizedReporter(deps: OversizedAlertDeps, limit: number): (at: OversizedAt, client: number | string | undefined, bytes: number) => void {
  return (at, client, bytes) => {
    deps.metrics?.oversized(at);
    const lockerId = typeof client === 'number' ? client : client !== undefined && LOCKER_ID.test(client) ? Number(client) : undefined;
    if (lockerId === undefined || lockerId > 2 ** 31 - 1) return;
    recordCloudAlert(deps.db.db, deps.logger, deps.clock.now(), lockerId, {
      kind: 'mqtt.oversized',
      severity: 'warning',
      detail: { bytes, limit, at },
    }).then(
      (live) => {
        for (const m of live) deps.signals.live.publish(m);
      },
      (err: unknown) => deps.logger.error({ err, lockerId }, 'could not raise the oversized-message alert'),
    );
  };
}
