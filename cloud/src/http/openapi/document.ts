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
    tags: [
      { name: 'orders', description: 'Orders of a marketplace: create, update, cancel positions, extend storage, find' },
      { name: 'postamats', description: 'Lockers a marketplace may use: list, detail, capacity' },
      { name: 'couriers', description: 'Courier route sheets of a delivery partner' },
      { name: 'operator', description: 'The platform operator: cells, fleet, notifications, alerts' },
      { name: 'health', description: 'Liveness and database reachability' },
      { name: 'notifications', description: 'What the service sends to the marketplace receiver' },
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
