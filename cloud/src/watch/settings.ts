/** The alert watch's section of the cloud's settings (environment variables in WATCH_ENV). */
import { z } from 'zod';

export const watchSettingsSchema = z.object({
  lockerOfflineSeconds: z.coerce
    .number()
    .int()
    .min(30)
    .max(7 * 86_400)
    .default(300)
    .describe('a locker whose link has been offline this long gets the critical alert locker.offline, resolved when it is back online'),
  intervalSeconds: z.coerce
    .number()
    .int()
    .min(5)
    .max(3_600)
    .default(30)
    .describe('how often the alert watch looks for lockers offline too long (and back online); an alert comes at most this much after its threshold'),
});
export type WatchSettings = z.infer<typeof watchSettingsSchema>;

export const WATCH_ENV = {
  lockerOfflineSeconds: 'LOCKER_OFFLINE_ALERT_SECONDS',
  intervalSeconds: 'ALERT_WATCH_INTERVAL_SECONDS',
} as const;
