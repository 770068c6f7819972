/** The notification dispatcher's section of the cloud's settings (environment variables in NOTIFY_ENV). */
import { z } from 'zod';
import { envFlag, settingsFromEnv } from '../settings-from-env.js';

const seconds = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const notifySettingsSchema = z
  .object({
    retrySeconds: seconds(1, 24 * 3600).default(300).describe('pause after a failed attempt, s (spec: every 5 minutes)'),
    failingAfterSeconds: seconds(1, 365 * 24 * 3600)
      .default(24 * 3600)
      .describe('an undelivered notification this old is marked failing (listed for operators), s'),
    failingRetrySeconds: seconds(1, 24 * 3600).default(300).describe('pause after a failed attempt once failing (still retried), s'),
    timeoutSeconds: seconds(1, 300).default(10).describe("one attempt: connect, send and the receiver's answer, s"),
    leaseSeconds: seconds(2, 3600)
      .default(60)
      .describe('a claimed notification whose attempt did not finish (process killed) is retried after this, s; must exceed `NOTIFY_TIMEOUT_SECONDS`'),
    pollSeconds: seconds(1, 3600).default(10).describe('fallback wake-up for notifications written by other processes, s'),
    concurrency: z.coerce.number().int().min(1).max(256).default(8).describe('attempts in flight at once (each for a different order)'),
    receiverConcurrency: z.coerce
      .number()
      .int()
      .min(1)
      .max(256)
      .default(2)
      .describe("of those, attempts to one marketplace's receiver at once: a receiver that answers slowly holds at most these, the others keep the rest"),
    failingAlertAttempts: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .default(3)
      .describe("this many failed attempts in a row to a marketplace's receiver raise the alert receiver.failing at once (resolved by its next delivery)"),
    allowPlainHttp: envFlag.default(false).describe('`1`/`true`: plain http:// receivers, for local demos only (HTTPS with verification otherwise)'),
  })
  .refine((s) => s.leaseSeconds > s.timeoutSeconds, { message: 'leaseSeconds must exceed timeoutSeconds', path: ['leaseSeconds'] });
export type NotifySettings = z.infer<typeof notifySettingsSchema>;

export const NOTIFY_ENV = {
  retrySeconds: 'NOTIFY_RETRY_SECONDS',
  failingAfterSeconds: 'NOTIFY_FAILING_AFTER_SECONDS',
  failingRetrySeconds: 'NOTIFY_FAILING_RETRY_SECONDS',
  timeoutSeconds: 'NOTIFY_TIMEOUT_SECONDS',
  leaseSeconds: 'NOTIFY_LEASE_SECONDS',
  pollSeconds: 'NOTIFY_POLL_SECONDS',
  concurrency: 'NOTIFY_CONCURRENCY',
  receiverConcurrency: 'NOTIFY_RECEIVER_CONCURRENCY',
  failingAlertAttempts: 'RECEIVER_FAILING_ALERT_ATTEMPTS',
  allowPlainHttp: 'NOTIFY_ALLOW_HTTP',
} as const;

/** This section alone, from `env` then `overrides` (tests). */
export function loadNotifySettings(
  env: Record<string, string | undefined>,
  overrides: Partial<z.input<typeof notifySettingsSchema>> = {},
): NotifySettings {
  return settingsFromEnv(notifySettingsSchema, NOTIFY_ENV, env, overrides);
}
