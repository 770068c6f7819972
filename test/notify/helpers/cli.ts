/** Runs the operator CLI (`npx tsx cloud/src/cli.ts ...`) as its own process against a test database. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { TestDatabase } from '../../helpers/cloud-db.js';

export const ROOT = join(import.meta.dirname, '../../..');

/** `node --import tsx <script>`: one process (the tsx binary would start a second one under it). */
export function tsNode(script: string, args: string[], env: Record<string, string | undefined>) {
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The environment that points a cloud process (or the CLI) at the test database. */
export function databaseEnv(db: TestDatabase): Record<string, string> {
  const { databaseUrl, sqlitePath, pgSchema } = db.location;
  return {
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(sqlitePath ? { SQLITE_PATH: sqlitePath } : {}),
    ...(pgSchema ? { PG_SCHEMA: pgSchema } : {}),
  };
}

export async function runCli(db: TestDatabase, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: undefined, SQLITE_PATH: undefined, PG_SCHEMA: undefined, ...databaseEnv(db) };
  const child = tsNode(join(ROOT, 'cloud/src/cli.ts'), args, env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}
