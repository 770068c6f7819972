/**
 * The committed Postman collection and its environment are what the generator makes of the
 * published document now, so the collection cannot drift from docs/openapi.json; and an example
 * the walk uses that the document no longer has stops the generator.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { buildCollection, type OpenApiDocument } from '../../scripts/collection/build-collection.js';
import { COLLECTION_FILE, ENVIRONMENT_FILE, collectionFiles } from '../../scripts/generate-collection.js';

const document = (): OpenApiDocument => JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as OpenApiDocument;

it('docs/collection is what docs/openapi.json gives (regenerate: npx tsx scripts/generate-collection.ts)', () => {
  const { collection, environment } = collectionFiles();
  expect(readFileSync(COLLECTION_FILE, 'utf8')).toBe(collection);
  expect(readFileSync(ENVIRONMENT_FILE, 'utf8')).toBe(environment);
});

it('refuses a document without an example the walk sends or an answer it expects', () => {
  const withoutRequest = document();
  delete withoutRequest.paths['/api/v4/auth/delivery/smartorder/create']!.put!.requestBody!.content['application/json']!.examples!.threeParcels;
  expect(() => buildCollection(withoutRequest)).toThrow('createSmartOrder has no request example threeParcels');

  const withoutAnswer = document();
  delete withoutAnswer.paths['/api/v4/auth/delivery/order/extension']!.post!.responses['400']!.content!['application/json']!.examples!.code252;
  expect(() => buildCollection(withoutAnswer)).toThrow('extendStorage has no 400 answer example code252');
});
