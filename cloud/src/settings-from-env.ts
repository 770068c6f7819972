/**
 * Settings from one zod schema: defaults from the schema, values from the environment variable
 * named for each key, then explicit overrides. A bad value throws a ConfigError naming the
 * variable (or the key, for an override), so the process stops at start.
 */
import { z } from 'zod';

/** A boolean setting: true/false/1/0 from the environment, or a boolean override. */
export const envFlag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')]);

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export type Env = Record<string, string | undefined>;

/** One schema and the environment variable of each of its keys that the environment may set. */
export interface SettingsSection<S extends z.ZodObject = z.ZodObject> {
  schema: S;
  env: Partial<Record<keyof z.input<S>, string>>;
}

type Read<T> = { ok: true; data: T } | { ok: false; lines: string[] };

/** One section: its value, or one line per bad setting naming the variable that set it. */
export function readSection<S extends z.ZodObject>(section: SettingsSection<S>, env: Env, overrides: Partial<z.input<S>> = {}, prefix = ''): Read<z.output<S>> {
  const envNames = section.env as Record<string, string | undefined>;
  const raw: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(envNames)) {
    const value = name === undefined ? undefined : env[name];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = section.schema.safeParse({ ...raw, ...overrides });
  if (parsed.success) return { ok: true, data: parsed.data };
  const lines = parsed.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '');
    const name = envNames[key];
    const path = prefix + issue.path.join('.');
    const where = name && key in raw && !(key in overrides) ? `${name} (${path})` : path;
    return `${where}: ${issue.message}`;
  });
  return { ok: false, lines };
}

export function settingsFromEnv<S extends z.ZodObject>(
  schema: S,
  envNames: Partial<Record<keyof z.input<S>, string>>,
  env: Env,
  overrides: Partial<z.input<S>> = {},
  title = 'invalid settings',
): z.output<S> {
  const read = readSection({ schema, env: envNames }, env, overrides);
  if (read.ok) return read.data;
  throw new ConfigError(`${title}:\n${read.lines.join('\n')}`);
}
