/** The storage clock's section of the cloud's settings (environment variables in STORAGE_CLOCK_ENV). */
import cron from 'node-cron';
import { z } from 'zod';
import { settingsFromEnv } from '../settings-from-env.js';

/** The spec's bound on the technical state 6: "within 15 minutes". */
export const MAX_RETURN_CONFIRM_SECONDS = 15 * 60;

export const storageClockSettingsSchema = z.object({
  cron: z
    .string()
    .refine((v) => cron.validate(v), 'expected a cron expression')
    .default('* * * * *')
    .describe('when the storage clock looks for expired storage and unconfirmed returns (cron, 5 or 6 fields)'),
  returnConfirmSeconds: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_RETURN_CONFIRM_SECONDS)
    .default(MAX_RETURN_CONFIRM_SECONDS)
    .describe('longest stay in Return initiated (6) when the locker does not confirm the revocation, s'),
});
export type StorageClockSettings = z.infer<typeof storageClockSettingsSchema>;

export const STORAGE_CLOCK_ENV = {
  cron: 'STORAGE_CLOCK_CRON',
  returnConfirmSeconds: 'RETURN_CONFIRM_SECONDS',
} as const;

/** This section alone, from `env` then `overrides` (tests). */
export function loadStorageClockSettings(
  env: Record<string, string | undefined>,
  overrides: Partial<z.input<typeof storageClockSettingsSchema>> = {},
): StorageClockSettings {
  return settingsFromEnv(storageClockSettingsSchema, STORAGE_CLOCK_ENV, env, overrides);
}
