/**
 * The options of @fastify/swagger: the cloud's OpenAPI 3.1 document, served at /docs/json and
 * published as docs/openapi.json. The route schemas give paths, parameters and schemas;
 * finish.ts adds components, descriptions, examples and the notification webhooks.
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { finishDocument, KEY_SCHEMES } from './finish.js';

const apiKey = (header: string, description: string) => ({ type: 'apiKey' as const, in: 'header', name: header, description });

export const swaggerOptions: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Parcel Locker Delivery Integration Service',
      description:
        'Marketplace operations under /api/v4 (X-Service-Api-Key), the sandbox under /api/v4/sandbox (sandbox marketplace keys only), the courier route operation under /api/v1 (Partner-Api-Key), ' +
        'operator endpoints under /operator (X-Operator-Api-Key, or the console session cookie from POST /operator/session), and the notifications the service sends to each marketplace ' +
        '(webhooks). Every refusal is the envelope {message, resultCode} (ErrorEnvelope); the result code decides the HTTP status.',
      version: '4.0.0',
    },
    // Relative: the cloud that serves the document at /docs/json; with the file, the base URL of the cloud called.
    servers: [{ url: '/', description: 'the cloud serving this document (its scheme, host and port)' }],
    tags: [
      { name: 'orders', description: 'Marketplace (X-Service-Api-Key): orders: create, update, cancel positions, extend storage, find' },
      { name: 'postamats', description: 'Marketplace (X-Service-Api-Key): the lockers it may use: list, detail, capacity' },
      { name: 'sandbox', description: "Sandbox marketplace (its own X-Service-Api-Key): play the locker's side (courier, customer, faults, receiver outages) on sandbox lockers" },
      { name: 'couriers', description: 'Courier company (Partner-Api-Key): route sheets of a delivery partner' },
      { name: 'operator', description: 'Platform operator (X-Operator-Api-Key or the console session): cells, fleet, orders, notifications, alerts, audit, releases, rollouts' },
      { name: 'health', description: 'Liveness and readiness, without a key' },
      { name: 'notifications', description: 'The webhooks the service sends to the marketplace receiver' },
    ],
    components: {
      securitySchemes: {
        [KEY_SCHEMES.marketplace.scheme]: apiKey(KEY_SCHEMES.marketplace.header, "the marketplace's API key"),
        [KEY_SCHEMES.partner.scheme]: apiKey(KEY_SCHEMES.partner.header, "the delivery partner's API key"),
        [KEY_SCHEMES.operator.scheme]: apiKey(KEY_SCHEMES.operator.header, "the operator's API key"),
        operatorSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'operator_session',
          description: 'the console session from POST /operator/session; every request but GET also sends its X-CSRF-Token',
        },
      },
    },
  },
  transform: jsonSchemaTransform,
  transformObject: finishDocument,
};
