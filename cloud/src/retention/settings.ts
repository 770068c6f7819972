/** The retention sweep's section of the cloud's settings (environment variables in RETENTION_ENV). */
import cron from 'node-cron';
import { z } from 'zod';

const days = (fallback: number, what: string) => z.coerce.number().int().min(1).max(3650).default(fallback).describe(what);

export const retentionSettingsSchema = z.object({
  cron: z
    .string()
    .refine((v) => cron.validate(v), 'expected a cron expression')
    .default('23 * * * *')
    .describe('when the retention sweep runs (cron, 5 or 6 fields); every hour keeps each run short'),
  finishedOrderDays: days(180, 'an order finished (received, picked up by the courier, cancelled) this many days ago is deleted with its parcels and history, once every notification of it was delivered'),
  deliveredNotificationDays: days(30, 'a notification delivered this many days ago is deleted (undelivered ones are kept however old)'),
  inboxEventDays: days(30, 'a locker event the cloud applied this many days ago is deleted (the link deduplicates by sequence number, not by these rows)'),
  routeSheetDays: days(90, 'a route sheet of a day this many days past is deleted with its locker codes'),
  alertDays: days(90, 'a locker alert received this many days ago is deleted'),
  linkHistoryDays: days(400, "a change of a locker's link (online/offline) this many days ago is deleted, except each locker's last one before then (reports: uptime over at most 366 days)"),
  batchSize: z.coerce.number().int().min(10).max(100_000).default(1_000).describe('rows one delete removes; each batch is its own short transaction'),
  maxBatchesPerRun: z.coerce.number().int().min(1).max(100_000).default(200).describe('batches per table in one run; the rest waits for the next run'),
});
export type RetentionSettings = z.infer<typeof retentionSettingsSchema>;

export const RETENTION_ENV = {
  cron: 'RETENTION_CRON',
  finishedOrderDays: 'RETENTION_FINISHED_ORDER_DAYS',
  deliveredNotificationDays: 'RETENTION_DELIVERED_NOTIFICATION_DAYS',
  inboxEventDays: 'RETENTION_INBOX_EVENT_DAYS',
  routeSheetDays: 'RETENTION_ROUTE_SHEET_DAYS',
  alertDays: 'RETENTION_ALERT_DAYS',
  linkHistoryDays: 'RETENTION_LINK_HISTORY_DAYS',
  batchSize: 'RETENTION_BATCH_SIZE',
  maxBatchesPerRun: 'RETENTION_MAX_BATCHES_PER_RUN',
} as const;
