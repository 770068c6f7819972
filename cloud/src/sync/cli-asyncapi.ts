/** Writes docs/asyncapi.json from the protocol's zod schemas. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { asyncApiText } from './asyncapi.js';

const target = fileURLToPath(new URL('../../../docs/asyncapi.json', import.meta.url));
writeFileSync(target, asyncApiText());
console.log(`wrote ${target}`);
