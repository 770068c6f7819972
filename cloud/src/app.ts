/**
 * The cloud's HTTP app as a Fastify plugin (shaped like fastify/demo): schemas, docs, error
 * handling and route groups. It never listens; server.ts does.
 */
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyPluginAsync } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { ProvisionReport } from './fleet/provision.js';
import type { DependencySources } from './health/dependency-checks.js';
import { poolShares } from './guard/pool-shares.js';
import { requestLimits } from './guard/request-limits.js';
import { API_KEY_HEADERS } from './http/auth.js';
import { installErrorHandling } from './http/error-handler.js';
import { swaggerOptions } from './http/openapi/document.js';
import { authentication } from './http/plugins/authentication.js';
import { deprecation } from './http/plugins/deprecation.js';
import { consoleRoutes } from './http/routes/console.js';
import { courierRoutes, V1_PREFIX } from './http/routes/courier.js';
import { faviconRoute } from './http/routes/favicon.js';
import { healthRoutes } from './http/routes/health.js';
import { marketplaceRoutes, V4_PREFIX } from './http/routes/marketplace.js';
import { metricsRoutes } from './http/routes/metrics.js';
import { OPERATOR_PREFIX, operatorRoutes } from './http/routes/operator/index.js';
import { SANDBOX_PREFIX, sandboxRoutes } from './http/routes/sandbox.js';
import { UPDATES_PREFIX, updateRoutes } from './http/routes/updates.js';
import type { SandboxLockers } from './sandbox/sandbox-lockers.js';
import type { ServiceDeps } from './services.js';

export interface AppOptions {
  deps: ServiceDeps;
  reloadFleet: () => Promise<ProvisionReport>;
  /** What readiness checks: the database, the broker link, the fleet. */
  dependencies: DependencySources;
  /** The sandbox lockers this process runs (none: the sandbox operations answer 503) and how long an operation waits. */
  sandbox: { lockers: SandboxLockers | undefined; timeoutMs: number };
}

export const app: FastifyPluginAsync<AppOptions> = async (fastify, opts) => {
  fastify.setValidatorCompiler(validatorCompiler);
  fastify.setSerializerCompiler(serializerCompiler);
  installErrorHandling(fastify);
  // Set by the Idempotency-Key hooks of the mutating routes (http/idempotency.ts).
  fastify.decorateRequest('idempotency', null);
  // Decorations only (the route groups add the hooks); the request limits use its declarations.
  await fastify.register(authentication, { deps: opts.deps });
  // Before everything that reads the database: whose share of the pool a request takes.
  await fastify.register(poolShares);
  // First onRequest hook that reads the database: counts every request before authentication (guard/request-limits.ts).
  await fastify.register(requestLimits, { deps: opts.deps });

  // Before the document and the routes: a route's config may retire it or an old form (docs/compatibility.md).
  await fastify.register(deprecation);
  await fastify.register(fastifySwagger, swaggerOptions);
  await fastify.register(fastifySwaggerUi, { routePrefix: '/docs' });

  await fastify.register(faviconRoute);
  await fastify.register(healthRoutes, { deps: opts.deps, dependencies: opts.dependencies });
  await fastify.register(metricsRoutes, { deps: opts.deps });
  await fastify.register(marketplaceRoutes, { prefix: V4_PREFIX, deps: opts.deps });
  await fastify.register(sandboxRoutes, { prefix: SANDBOX_PREFIX, deps: { ...opts.deps, ...opts.sandbox } });
  await fastify.register(courierRoutes, { prefix: V1_PREFIX, deps: opts.deps });
  await fastify.register(operatorRoutes, { prefix: OPERATOR_PREFIX, deps: opts.deps, reloadFleet: opts.reloadFleet });
  // Release artifacts for the lockers' agents (their own authentication and bounds).
  await fastify.register(updateRoutes, { prefix: UPDATES_PREFIX, deps: opts.deps });
  // The operator's web console (static files; it calls the /operator API above).
  await fastify.register(consoleRoutes);
};

export { API_KEY_HEADERS };
