/**
 * Writes the Postman collection and its environment for the example fleet into docs/collection/,
 * made from the published document (docs/openapi.json). test/collection/collection.test.ts fails
 * when the committed files are not what this script writes, so the collection never drifts from
 * the contract.
 *
 * Usage: npx tsx scripts/generate-collection.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCollection, exampleEnvironment, fileText, type OpenApiDocument } from './collection/build-collection.js';

const ROOT = join(import.meta.dirname, '..');
export const COLLECTION_DIR = join(ROOT, 'docs/collection');
export const COLLECTION_FILE = join(COLLECTION_DIR, 'parcel-locker.postman_collection.json');
export const ENVIRONMENT_FILE = join(COLLECTION_DIR, 'example-fleet.postman_environment.json');

/** The files' texts for the document at docs/openapi.json. */
export function collectionFiles(): { collection: string; environment: string } {
  const doc = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8')) as OpenApiDocument;
  return { collection: fileText(buildCollection(doc)), environment: fileText(exampleEnvironment()) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { collection, environment } = collectionFiles();
  mkdirSync(COLLECTION_DIR, { recursive: true });
  writeFileSync(COLLECTION_FILE, collection);
  writeFileSync(ENVIRONMENT_FILE, environment);
  process.stdout.write(`wrote ${COLLECTION_FILE}\nwrote ${ENVIRONMENT_FILE}\n`);
}
