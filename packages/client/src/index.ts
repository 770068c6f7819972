/**
 * @parcel-locker/client: typed clients of the cloud's HTTP API by audience (client.ts), the API's
 * types (schema.ts, generated from docs/openapi.json), and the notification receiver kit
 * (receiver.ts, also `@parcel-locker/client/receiver`).
 */
export * from './client.js';
export * from './receiver.js';
export type { components, paths, webhooks } from './schema.js';
