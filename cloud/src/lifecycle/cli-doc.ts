/** Writes the lifecycle tables into docs/lifecycle.md (between its markers). */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withLifecycleTables } from './render.js';

const target = fileURLToPath(new URL('../../../docs/lifecycle.md', import.meta.url));
writeFileSync(target, withLifecycleTables(readFileSync(target, 'utf8')));
console.log(`wrote ${target}`);
