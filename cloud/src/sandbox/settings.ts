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
});
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>;

export const SANDBOX_ENV = {
  lockers: 'SANDBOX_LOCKERS',
  dataDir: 'SANDBOX_DATA_DIR',
  timeoutSeconds: 'SANDBOX_TIMEOUT_SECONDS',
} as const;
