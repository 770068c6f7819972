/** docs/operations.md lists every setting of the cloud, the demo and the agent as their schemas define them. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLOUD_SETTINGS } from '../../cloud/src/settings.js';
import { SETTINGS_BLOCKS } from '../../demo/settings-blocks.js';
import { textBetweenMarkers } from '../../shared/src/settings-table.js';

const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');

describe('the settings tables of docs/operations.md', () => {
  it.each(Object.keys(SETTINGS_BLOCKS))('%s is what the schema generates (regenerate: npx tsx demo/cli-settings-doc.ts)', (name) => {
    expect(textBetweenMarkers(doc, name)).toBe(SETTINGS_BLOCKS[name]!());
  });

  it('name every environment variable of the cloud', () => {
    const cloud = textBetweenMarkers(doc, 'cloud-settings');
    const names = Object.values(CLOUD_SETTINGS).flatMap((s) => Object.values(s.env) as string[]);
    expect(names.length).toBeGreaterThan(30);
    for (const name of names) expect(cloud).toContain(`| \`${name}\` |`);
  });
});
