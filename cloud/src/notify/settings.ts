/** Settings of the notification dispatcher (environment variables in NOTIFY_ENV). */
import { z } from 'zod';
import { envFlag, settingsFromEnv } from '../settings-from-env.js';

const seconds = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const notifySettingsSchema = z
  .object({
    /** Pause after a failed attempt (spec: every 5 minutes). */
    retrySeconds: seconds(1, 24 * 3600).default(300),
    /** An undelivered notification this old is marked failing (listed for operators). */
    failingAfterSeconds: seconds(1, 365 * 24 * 3600).default(24 * 3600),
    /** Pause after a failed attempt once failing; still retried (docs/notifications.md). */
    failingRetrySeconds: seconds(1, 24 * 3600).default(300),
    /** One attempt: connect, send, and the receiver's answer. */
    timeoutSeconds: seconds(1, 300).default(10),
    /** A claimed notification whose attempt did not finish (process killed) is retried after this. */
    leaseSeconds: seconds(2, 3600).default(60),
    /** Fallback wake-up for notifications written by other processes. */
    pollSeconds: seconds(1, 3600).default(10),
    /** Attempts in flight at once (each for a different order). */
    concurrency: z.coerce.number().int().min(1).max(256).default(8),
    /** Plain http:// receivers, for local demos only; HTTPS with verification otherwise. */
    allowPlainHttp: envFlag.default(false),
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
  allowPlainHttp: 'NOTIFY_ALLOW_HTTP',
} as const;

export function loadNotifySettings(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<z.input<typeof notifySettingsSchema>> = {},
): NotifySettings {
  return settingsFromEnv(notifySettingsSchema, NOTIFY_ENV, env, overrides);
}
