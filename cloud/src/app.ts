/**
 * The cloud's HTTP app as a Fastify plugin (shaped like fastify/demo): schemas, docs, error
 * handling and route groups. It never listens; server.ts does.
 */
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyPluginAsync } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { ProvisionReport } from './fleet/provision.js';
import { requestLimits } from './guard/request-limits.js';
import { API_KEY_HEADERS } from './http/auth.js';
import { installErrorHandling } from './http/error-handler.js';
import { authentication } from './http/plugins/authentication.js';
import { consoleRoutes } from './http/routes/console.js';
import { courierRoutes, V1_PREFIX } from './http/routes/courier.js';
import { healthRoutes } from './http/routes/health.js';
import { marketplaceRoutes, V4_PREFIX } from './http/routes/marketplace.js';
import { OPERATOR_PREFIX, operatorRoutes } from './http/routes/operator/index.js';
import type { ServiceDeps } from './services.js';

export interface AppOptions {
  deps: ServiceDeps;
  reloadFleet: () => Promise<ProvisionReport>;
}

export const app: FastifyPluginAsync<AppOptions> = async (fastify, opts) => {
  fastify.setValidatorCompiler(validatorCompiler);
  fastify.setSerializerCompiler(serializerCompiler);
  installErrorHandling(fastify);
  // Decorations only (the route groups add the hooks); the request limits use its declarations.
  await fastify.register(authentication, { deps: opts.deps });
  // First onRequest hook: counts every request before authentication (guard/request-limits.ts).
  await fastify.register(requestLimits, { deps: opts.deps });

  await fastify.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parcel Locker Delivery Integration Service',
        description:
          'Marketplace operations under /api/v4 (X-Service-Api-Key), the courier route operation under /api/v1 (Partner-Api-Key), ' +
          'operator endpoints under /operator (X-Operator-Api-Key, or the console session cookie from POST /operator/session). Errors: {message, resultCode}.',
        version: '4.0.0',
      },
      components: {
        securitySchemes: {
          serviceApiKey: { type: 'apiKey', in: 'header', name: 'X-Service-Api-Key' },
          partnerApiKey: { type: 'apiKey', in: 'header', name: 'Partner-Api-Key' },
          operatorApiKey: { type: 'apiKey', in: 'header', name: 'X-Operator-Api-Key' },
          operatorSession: { type: 'apiKey', in: 'cookie', name: 'operator_session' },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  await fastify.register(fastifySwaggerUi, { routePrefix: '/docs' });

  await fastify.register(healthRoutes, { deps: opts.deps });
  await fastify.register(marketplaceRoutes, { prefix: V4_PREFIX, deps: opts.deps });
  await fastify.register(courierRoutes, { prefix: V1_PREFIX, deps: opts.deps });
  await fastify.register(operatorRoutes, { prefix: OPERATOR_PREFIX, deps: opts.deps, reloadFleet: opts.reloadFleet });
  // The operator's web console (static files; it calls the /operator API above).
  await fastify.register(consoleRoutes);
};

export { API_KEY_HEADERS };
