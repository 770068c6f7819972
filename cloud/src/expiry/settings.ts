/** Settings of the storage clock (environment variables in STORAGE_CLOCK_ENV). */
import cron from 'node-cron';
import { z } from 'zod';
import { settingsFromEnv } from '../settings-from-env.js';

/** The spec's bound on the technical state 6: "within 15 minutes". */
export const MAX_RETURN_CONFIRM_SECONDS = 15 * 60;

export const storageClockSettingsSchema = z.object({
  /** When the clock looks for expired storage and confirmed revocations (node-cron, 5 or 6 fields). */
  cron: z.string().refine((v) => cron.validate(v), 'expected a cron expression').default('* * * * *'),
  /** Longest stay in Return initiated (6) when the locker does not confirm the revocation. */
  returnConfirmSeconds: z.coerce.number().int().min(0).max(MAX_RETURN_CONFIRM_SECONDS).default(MAX_RETURN_CONFIRM_SECONDS),
});
export type StorageClockSettings = z.infer<typeof storageClockSettingsSchema>;

export const STORAGE_CLOCK_ENV = {
  cron: 'STORAGE_CLOCK_CRON',
  returnConfirmSeconds: 'RETURN_CONFIRM_SECONDS',
} as const;

export function loadStorageClockSettings(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<z.input<typeof storageClockSettingsSchema>> = {},
): StorageClockSettings {
  return settingsFromEnv(storageClockSettingsSchema, STORAGE_CLOCK_ENV, env, overrides);
}
