/**
 * The cloud's settings tables for docs/operations.md, generated from the settings schema
 * (settings.ts): every variable with its default, accepted values and meaning.
 * `npx tsx demo/cli-settings-doc.ts` writes them; test/architecture/settings-doc.test.ts checks them.
 */
import { z } from 'zod';
import { acceptedValues, cell, code, defaultText, markdownTable, type JsonProperty } from '../../shared/src/settings-table.js';
import { CLOUD_SETTINGS } from './settings.js';
import type { SettingsSection } from './settings-from-env.js';

/** One row per environment variable of the section, in the schema's order; defaults are what an empty environment gives. */
export function sectionTable(section: SettingsSection): string {
  const props = (z.toJSONSchema(section.schema, { io: 'input', unrepresentable: 'any' }).properties ?? {}) as Record<string, JsonProperty>;
  const defaults = section.schema.parse({});
  const env = section.env as Record<string, string | undefined>;
  const rows = Object.keys(section.schema.shape)
    .filter((key) => env[key] !== undefined)
    .map((key) => {
      const p = props[key] ?? {};
      return [code(env[key]), defaultText(defaults[key]), cell(acceptedValues(p)), cell(p.description ?? '')];
    });
  return markdownTable(['variable', 'default', 'values', 'what'], rows);
}

const CLOUD_TITLES: Record<keyof typeof CLOUD_SETTINGS, string> = {
  config: 'HTTP, database, fleet, orders, logs',
  notify: 'Notifications ([notifications.md](notifications.md))',
  storageClock: 'Storage clock ([notifications.md](notifications.md))',
  mqtt: 'Locker link ([mqtt-interface.md](mqtt-interface.md))',
  retention: 'Retention ([operations.md](#retention))',
  sandbox: 'Sandbox ([sandbox.md](sandbox.md))',
  watch: 'Alert watch ([the operator console](#the-operator-console))',
};

/** Every setting of the cloud process, one table per section. */
export function cloudSettingsDoc(): string {
  return (Object.keys(CLOUD_SETTINGS) as (keyof typeof CLOUD_SETTINGS)[])
    .map((key) => `**${CLOUD_TITLES[key]}**\n\n${sectionTable(CLOUD_SETTINGS[key])}`)
    .join('\n\n');
}
