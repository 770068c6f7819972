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

export function settingsFromEnv<S extends z.ZodObject>(
  schema: S,
  envNames: Partial<Record<keyof z.input<S>, string>>,
  env: Record<string, string | undefined>,
  overrides: Partial<z.input<S>> = {},
  title = 'invalid settings',
): z.output<S> {
  const raw: Record<string, unknown> = {};
  for (const [key, name] of Object.entries(envNames) as [string, string][]) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = schema.safeParse({ ...raw, ...overrides });
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '');
    const name = (envNames as Record<string, string | undefined>)[key];
    const where = name && key in raw && !(key in overrides) ? `${name} (${issue.path.join('.')})` : issue.path.join('.');
    return `${where}: ${issue.message}`;
  });
  throw new ConfigError(`${title}:\n${lines.join('\n')}`);
}
