/** The sandbox's section of the cloud's settings (environment variables in SANDBOX_ENV; docs/sandbox.md). */
import { z } from 'zod';
import { envFlag } from '../settings-from-env.js';

export const sandboxSettingsSchema = z.object({
  lockers: envFlag
    .default(true)
    .describe(
      "`true`: this process runs the fleet's sandbox lockers, each a child process of simulator and agent (embedded broker only; one process of several sharing a database)",
    ),
  dataDir: z.string().min(1).default('data/sandbox').describe("the sandbox lockers' agent SQLite files"),
  timeoutSeconds: z.coerce
    .number()
    .int()
    .min(1)
    .max(600)
    .default(60)
    .describe('longest wait of a sandbox operation for its effect (a locker start, a door, the cloud recording it), s'),
  firstPort: z.coerce
    .number()
    .int()
    .min(0)
    .max(65_535)
    .default(8600)
    .describe(
      'the first port of the sandbox lockers\' block: each takes 8 consecutive ports by its slot (screen, simulator, then one per bus and one for a scanner, at most 6), all on 127.0.0.1 and checked free at start; 0 picks free ones (URLs change at each start)',
    ),
  maxLockers: z.coerce
    .number()
    .int()
    .min(1)
    .max(256)
    .default(8)
    .describe('slots in the block (it spans 8 × this ports): a sandbox locker beyond them, e.g. added by a fleet reload, is not started (logged, `cloud_sandbox_lockers_refused_total`)'),
});
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

export const SANDBOX_ENV = {
  lockers: 'SANDBOX_LOCKERS',
  dataDir: 'SANDBOX_DATA_DIR',
  timeoutSeconds: 'SANDBOX_TIMEOUT_SECONDS',
  firstPort: 'SANDBOX_FIRST_PORT',
  maxLockers: 'SANDBOX_MAX_LOCKERS',
} as const;
