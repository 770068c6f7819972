/**
 * The cloud's settings: one zod schema gives the types, the defaults and the environment
 * variable of each setting. A bad value stops the process at start with a message naming it.
 */
import { z } from 'zod';
import { LOG_LEVELS } from '../../shared/src/redact.js';
import { allocationOptionsSchema } from './allocation/options.js';
import { ConfigError, settingsFromEnv } from './settings-from-env.js';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const configSchema = z.object({
  /** HTTP port; 0 picks a free one (tests). */
  port: int(0, 65_535).default(8080),
  host: z.string().min(1).default('127.0.0.1'),
  /** `postgres://...` selects PostgreSQL; otherwise SQLite at sqlitePath. */
  databaseUrl: z.string().optional(),
  sqlitePath: z.string().min(1).default('data/cloud.sqlite'),
  /** PostgreSQL schema (created when missing); lets several installations share one database. */
  pgSchema: z.string().regex(/^[a-z_][a-z0-9_]*$/).optional(),
  dbPoolSize: int(1, 200).default(10),
  /** Fleet file loaded at start and on reload; without it the database keeps what it has. */
  fleetFile: z.string().optional(),
  /** A reservation not loaded by the end of its dateDelivery plus this grace is released. */
  reservationGraceMinutes: int(0, 7 * 24 * 60).default(60),
  /** How often the cloud looks for reservations to release. */
  reservationSweepSeconds: int(1, 3600).default(60),
  /** Days the capacity answer covers, starting at deliveryDate. */
  capacityDays: int(1, 31).default(7),
  /** Days (from the locker's today) the locker list reports dayOffs for. */
  dayOffsDays: int(1, 31).default(7),
  /** Digits of courier access codes and of customer pick-up codes (spec: 6 to 8). */
  courierCodeLength: int(6, 8).default(8),
  pickupCodeLength: int(6, 8).default(6),
  /**
   * Largest accepted request body. The largest legitimate request, an order at every limit of
   * contract/common.ts (LIMITS: 100 parcels with 10 additional barcodes each, 100 items with
   * 256-character Cyrillic names, ids of 128 ASCII characters), is about 230 KiB.
   */
  bodyLimitBytes: int(1024, 64 * 1024 * 1024).default(256 * 1024),
  logLevel: z.enum(LOG_LEVELS).default('info'),
  allocation: allocationOptionsSchema.default(allocationOptionsSchema.parse({})),
});
export type CloudConfig = z.infer<typeof configSchema>;
export type CloudConfigInput = z.input<typeof configSchema>;

/** The environment variable of each scalar setting. */
export const CONFIG_ENV = {
  port: 'PORT',
  host: 'HOST',
  databaseUrl: 'DATABASE_URL',
  sqlitePath: 'SQLITE_PATH',
  pgSchema: 'PG_SCHEMA',
  dbPoolSize: 'DB_POOL_SIZE',
  fleetFile: 'FLEET_FILE',
  reservationGraceMinutes: 'RESERVATION_GRACE_MINUTES',
  reservationSweepSeconds: 'RESERVATION_SWEEP_SECONDS',
  capacityDays: 'CAPACITY_DAYS',
  dayOffsDays: 'DAY_OFFS_DAYS',
  courierCodeLength: 'COURIER_CODE_LENGTH',
  pickupCodeLength: 'PICKUP_CODE_LENGTH',
  bodyLimitBytes: 'BODY_LIMIT_BYTES',
  logLevel: 'LOG_LEVEL',
} as const satisfies Partial<Record<keyof CloudConfig, string>>;

export { ConfigError };

/** Settings from the environment, then `overrides` on top; throws ConfigError naming bad values. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: CloudConfigInput = {}): CloudConfig {
  return settingsFromEnv(configSchema, CONFIG_ENV, env, overrides, 'invalid cloud configuration');
}
