/** Writes docs/openapi.json: the OpenAPI document the cloud serves at /docs/json. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiText, servedDocument } from './published.js';

const target = fileURLToPath(new URL('../../../../docs/openapi.json', import.meta.url));
writeFileSync(target, openApiText(await servedDocument()));
console.log(`wrote ${target}`);
