/**
 * The committed Postman collection and its environment are what the generator makes of the
 * published document now, so the collection cannot drift from docs/openapi.json.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { COLLECTION_FILE, ENVIRONMENT_FILE, collectionFiles } from '../../scripts/generate-collection.js';

it('docs/collection is what docs/openapi.json gives (regenerate: npx tsx scripts/generate-collection.ts)', () => {
  const { collection, environment } = collectionFiles();
  expect(readFileSync(COLLECTION_FILE, 'utf8')).toBe(collection);
  expect(readFileSync(ENVIRONMENT_FILE, 'utf8')).toBe(environment);
});
