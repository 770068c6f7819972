/**
 * The cloud process's settings: one schema of five sections (core, notifications, storage clock,
 * MQTT, retention, sandbox, alert watch), each setting with its environment variable and description. `npm run cloud` reads them
 * once from the environment (main.ts) and passes them down; the demo and the benchmarks build them
 * from the defaults plus overrides. docs/operations.md's table is generated from CLOUD_SETTINGS
 * (cli-settings-doc.ts). A bad value stops the start with one message naming every bad variable.
 */
import type { z } from 'zod';
import { CONFIG_ENV, configSchema } from './config.js';
import { STORAGE_CLOCK_ENV, storageClockSettingsSchema } from './expiry/settings.js';
import { NOTIFY_ENV, notifySettingsSchema } from './notify/settings.js';
import { RETENTION_ENV, retentionSettingsSchema } from './retention/settings.js';
import { SANDBOX_ENV, sandboxSettingsSchema } from './sandbox/settings.js';
import { ConfigError, readSection, type Env, type SettingsSection } from './settings-from-env.js';
import { MQTT_ENV, mqttSettingsSchema } from './sync/mqtt-settings.js';
import { WATCH_ENV, watchSettingsSchema } from './watch/settings.js';

export const CLOUD_SETTINGS = {
  config: { schema: configSchema, env: CONFIG_ENV },
  notify: { schema: notifySettingsSchema, env: NOTIFY_ENV },
  storageClock: { schema: storageClockSettingsSchema, env: STORAGE_CLOCK_ENV },
  mqtt: { schema: mqttSettingsSchema, env: MQTT_ENV },
  retention: { schema: retentionSettingsSchema, env: RETENTION_ENV },
  sandbox: { schema: sandboxSettingsSchema, env: SANDBOX_ENV },
  watch: { schema: watchSettingsSchema, env: WATCH_ENV },
} as const satisfies Record<string, SettingsSection>;

type Sections = typeof CLOUD_SETTINGS;
export type CloudSettings = { [K in keyof Sections]: z.output<Sections[K]['schema']> };
export type CloudSettingsInput = { [K in keyof Sections]?: Partial<z.input<Sections[K]['schema']>> };

/** Every section from `env`, then `overrides` on top; throws one ConfigError listing every bad value. */
export function loadCloudSettings(env: Env, overrides: CloudSettingsInput = {}): CloudSettings {
  const lines: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, section] of Object.entries(CLOUD_SETTINGS) as [keyof Sections, SettingsSection][]) {
    const read = readSection(section, env, overrides[key] ?? {});
    if (read.ok) out[key] = read.data;
    else lines.push(...read.lines);
  }
  if (lines.length > 0) throw new ConfigError(`invalid cloud settings:\n${lines.join('\n')}`);
  return out as CloudSettings;
}
