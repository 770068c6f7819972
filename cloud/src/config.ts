/**
 * The core section of the cloud's settings (HTTP, database, fleet, orders, logs): the types, the
 * defaults, the description and the environment variable of each setting. The whole process's
 * settings are cloud/src/settings.ts; domain services see this section as `deps.config`.
 */
import { z } from 'zod';
import { LOG_LEVELS } from '../../shared/src/redact.js';
import { publicKeyText } from '../../shared/src/release.js';
import { allocationOptionsSchema } from './allocation/options.js';
import { DATABASE_URL_EXPECTED, isDatabaseUrl } from './db/database-url.js';
import { ConfigError, envFlag, settingsFromEnv } from './settings-from-env.js';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
/** A comma-separated list from the environment, or a list from an override. */
const list = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : v,
    z.array(item),
  );

export const configSchema = z.object({
  port: int(0, 65_535).default(8080).describe("the HTTP API's port (`/api/v4`, `/api/v1`, `/operator`, `/docs`, `/health`); 0 picks a free one"),
  host: z.string().min(1).default('127.0.0.1').describe('the address the HTTP API listens on (0.0.0.0 for every interface)'),
  databaseUrl: z
    .string()
    .refine(isDatabaseUrl, DATABASE_URL_EXPECTED)
    .optional()
    .describe('`postgres://...` selects PostgreSQL, `sqlite:<path>` or `file:<path>` that SQLite file; unset, SQLite at `SQLITE_PATH`'),
  sqlitePath: z.string().min(1).default('data/cloud.sqlite').describe('the SQLite file when `DATABASE_URL` is unset (a `sqlite:`/`file:` `DATABASE_URL` names its own)'),
  pgSchema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/)
    .optional()
    .describe('PostgreSQL schema (created when missing), so that several installations can share one database'),
  dbPoolSize: int(1, 200).default(10).describe('PostgreSQL connections per process'),
  dbPoolCallerShare: z.coerce
    .number()
    .gt(0)
    .max(1)
    .default(0.5)
    .describe('the fraction of `DB_POOL_SIZE` one caller (a marketplace, partner or operator, the locker link, background work) may hold at once (rounded up, at least 1); the others get theirs in turn'),
  dbPoolCallerQueue: int(1, 100_000)
    .default(200)
    .describe('requests of one API caller that may wait for the PostgreSQL pool; beyond it 429 with `Retry-After`'),
  fleetFile: z.string().optional().describe('the fleet file loaded at start and on reload (docs/fleet.md); unset, the database keeps what it has'),
  reservationGraceMinutes: int(0, 7 * 24 * 60)
    .default(60)
    .describe('a reservation not loaded by the end of its `dateDelivery` (locker time) plus this grace is released'),
  reservationSweepSeconds: int(1, 3600).default(60).describe('how often the cloud looks for reservations to release'),
  capacityDays: int(1, 31).default(7).describe('days the capacity answer covers, from `deliveryDate`'),
  dayOffsDays: int(1, 31).default(7).describe("days (from the locker's today) the locker list reports `dayOffs` for"),
  courierCodeLength: int(6, 8).default(8).describe('digits of courier access codes'),
  pickupCodeLength: int(6, 8).default(6).describe('digits of customer pick-up codes'),
  /**
   * The largest legitimate request, an order at every limit of contract/common.ts (LIMITS: 100
   * parcels with 10 additional barcodes each, 100 items with 256-character Cyrillic names, ids of
   * 128 ASCII characters), is about 230 KiB.
   */
  bodyLimitBytes: int(1024, 64 * 1024 * 1024).default(256 * 1024).describe('largest accepted request body, bytes (the largest legitimate order is about 230 KiB)'),
  httpMaxConnections: int(16, 1_000_000)
    .default(10_000)
    .describe('HTTP connections this process holds at once; beyond it a new connection is closed at once (keep it under the open-files limit)'),
  httpMaxConnectionsPerAddress: int(0, 1_000_000)
    .default(256)
    .describe('HTTP connections one remote address holds at once; beyond it its new connection is closed at once; 0: no bound (behind a reverse proxy every connection comes from the proxy: set it above what the proxy opens, or 0, and bound clients at the proxy)'),
  metricsRequireKey: envFlag
    .default(false)
    .describe('`true`: `GET /metrics` needs an operator key (`X-Operator-Api-Key`, or `Authorization: Bearer <key>` as Prometheus sends it); `false`: open, like most exporters'),
  idempotencyKeyHours: int(1, 30 * 24)
    .default(24)
    .describe('how long an Idempotency-Key keeps its first answer for retries (api.md, Safe retries); expired keys are swept'),
  idempotencyLeaseSeconds: int(1, 3600)
    .default(60)
    .describe('a request holding an Idempotency-Key longer than this without answering (a crashed process) may be taken over by a retry'),
  idempotencySweepSeconds: int(1, 24 * 3600).default(3600).describe('how often expired Idempotency-Keys are deleted'),
  logLevel: z.enum(LOG_LEVELS).default('info').describe('log level (operations.md, Logs)'),
  operatorSessionIdleMinutes: int(1, 30 * 24 * 60)
    .default(12 * 60)
    .describe('an operator console session (`POST /operator/session`) ends after this long without a request'),
  operatorSessionsMax: int(1, 1000)
    .default(20)
    .describe("live console sessions per operator; a sign-in beyond it ends that operator's oldest session"),
  releasePublicKeys: list(publicKeyText)
    .pipe(z.array(z.string()).max(8))
    .default([])
    .describe('Ed25519 public keys (base64url, comma-separated) one of which must have signed a release upload (docs/updates.md); none: uploads are refused'),
  releaseMaxBytes: int(1_048_576, 536_870_912).default(67_108_864).describe('largest release artifact an upload may carry, bytes'),
  releaseDownloadsMax: int(1, 100_000).default(500).describe('artifact downloads this process serves at once; beyond it lockers are told to come back (503, Retry-After)'),
  rolloutTickSeconds: int(1, 3600).default(5).describe('how often the cloud moves rollouts on: offers, waves, soak, halts'),
  rolloutOfferResendSeconds: int(5, 86_400).default(120).describe('an update offer an online locker has not answered for this long is sent again'),
  /** Not from the environment: tests and tools pass it as an override. */
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
  dbPoolCallerShare: 'DB_POOL_CALLER_SHARE',
  dbPoolCallerQueue: 'DB_POOL_CALLER_QUEUE',
  fleetFile: 'FLEET_FILE',
  reservationGraceMinutes: 'RESERVATION_GRACE_MINUTES',
  reservationSweepSeconds: 'RESERVATION_SWEEP_SECONDS',
  capacityDays: 'CAPACITY_DAYS',
  dayOffsDays: 'DAY_OFFS_DAYS',
  courierCodeLength: 'COURIER_CODE_LENGTH',
  pickupCodeLength: 'PICKUP_CODE_LENGTH',
  bodyLimitBytes: 'BODY_LIMIT_BYTES',
  httpMaxConnections: 'HTTP_MAX_CONNECTIONS',
  httpMaxConnectionsPerAddress: 'HTTP_MAX_CONNECTIONS_PER_ADDRESS',
  metricsRequireKey: 'METRICS_REQUIRE_KEY',
  idempotencyKeyHours: 'IDEMPOTENCY_KEY_HOURS',
  idempotencyLeaseSeconds: 'IDEMPOTENCY_LEASE_SECONDS',
  idempotencySweepSeconds: 'IDEMPOTENCY_SWEEP_SECONDS',
  logLevel: 'LOG_LEVEL',
  operatorSessionIdleMinutes: 'OPERATOR_SESSION_IDLE_MINUTES',
  operatorSessionsMax: 'OPERATOR_SESSIONS_MAX',
  releasePublicKeys: 'RELEASE_PUBLIC_KEYS',
  releaseMaxBytes: 'RELEASE_MAX_BYTES',
  releaseDownloadsMax: 'RELEASE_DOWNLOADS_MAX',
  rolloutTickSeconds: 'ROLLOUT_TICK_SECONDS',
  rolloutOfferResendSeconds: 'ROLLOUT_OFFER_RESEND_SECONDS',
} as const satisfies Partial<Record<keyof CloudConfig, string>>;

export { ConfigError };

/** This section alone, from `env` then `overrides` (tests); throws ConfigError naming bad values. */
export function loadConfig(env: Record<string, string | undefined>, overrides: CloudConfigInput = {}): CloudConfig {
  return settingsFromEnv(configSchema, CONFIG_ENV, env, overrides, 'invalid cloud configuration');
}
