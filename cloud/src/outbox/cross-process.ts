/**
 * Notifications recorded by one cloud process wake the dispatchers of the others at once
 * (PostgreSQL LISTEN/NOTIFY) instead of at their next poll (NOTIFY_POLL_SECONDS), which stays the
 * safety net. On SQLite there is no such channel: see docs/decisions.md (one dispatcher per file).
 */
import type { Logger } from 'pino';
import type { CloudDatabase } from '../db/database.js';
import { openWakeupChannel } from '../db/wakeup-channel.js';
import type { OutboxSignals } from './signals.js';

export const NOTIFICATIONS_CHANNEL = 'parcel_locker_notifications';

export interface CrossProcessWakeups {
  ready(): Promise<void>;
  stop(): Promise<void>;
}

export function bridgeNotificationWakeups(
  cdb: CloudDatabase,
  location: { databaseUrl?: string | undefined; pgSchema?: string | undefined },
  signals: OutboxSignals,
  logger: Logger,
): CrossProcessWakeups | undefined {
  if (cdb.engine !== 'postgres' || !location.databaseUrl) return undefined;
  const channel = openWakeupChannel({
    databaseUrl: location.databaseUrl,
    pgSchema: location.pgSchema,
    channel: NOTIFICATIONS_CHANNEL,
    onWake: () => signals.notificationsElsewhere(),
    logger,
  });
  const unsubscribe = signals.onLocalNotifications(() => void channel.announce());
  return {
    ready: () => channel.ready(),
    async stop() {
      unsubscribe();
      await channel.close();
    },
  };
}
