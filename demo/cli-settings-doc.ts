/**
 * Writes the settings tables of docs/operations.md (the demo's, the cloud's and the agent's) from
 * their schemas, between their markers: `npx tsx demo/cli-settings-doc.ts`. It lives with the demo,
 * the one part that already depends on both the cloud and the agent.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SETTINGS_BLOCKS } from './settings-blocks.js';
import { replaceBetweenMarkers } from '../shared/src/settings-table.js';

const target = fileURLToPath(new URL('../docs/operations.md', import.meta.url));
let doc = readFileSync(target, 'utf8');
for (const [name, text] of Object.entries(SETTINGS_BLOCKS)) doc = replaceBetweenMarkers(doc, name, text());
writeFileSync(target, doc);
console.log(`wrote ${target}`);
