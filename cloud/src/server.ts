/**
 * Builds the Fastify instance around the app plugin and listens. The server-wide parts live here:
 * the body limit, JSON bodies as UTF-8, the X-Request-Id of every answer, and the envelope for
 * refusals before any route (transport-errors.ts), so that every answer, whatever goes wrong, is
 * `{message, resultCode}`, and the HTTP metrics' hook, which sees every answer.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { app, type AppOptions } from './app.js';
import { RequestLogController } from './http/request-log.js';
import { handleError } from './http/error-handler.js';
import { installJsonBodyParser } from './http/json-body.js';
import { answerRequestId, genReqId } from './http/request-id.js';
import { checkUrl, transportErrorOptions } from './http/transport-errors.js';

export interface ServerOptions extends AppOptions {
  logger: Logger;
  bodyLimit: number;
}

export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  // pino's Logger is a FastifyBaseLogger; widen the instance type once here.
  const server = Fastify({
    loggerInstance: opts.logger,
    logController: new RequestLogController(),
    bodyLimit: opts.bodyLimit,
    // The id comes from genReqId alone (the caller's X-Request-Id only when valid).
    requestIdHeader: false,
    genReqId,
    ...transportErrorOptions,
  }) as unknown as FastifyInstance;
  server.setErrorHandler(handleError);
  installJsonBodyParser(server);
  server.addHook('onRequest', answerRequestId);
  server.addHook('onRequest', checkUrl);
  opts.deps.metrics.http.install(server);
  await server.register(app, { deps: opts.deps, reloadFleet: opts.reloadFleet, dependencies: opts.dependencies, sandbox: opts.sandbox });
  await server.ready();
  return server;
}

/** Listens and returns the base URL (with the real port when 0 was asked). */
export async function listen(server: FastifyInstance, host: string, port: number): Promise<string> {
  await server.listen({ host, port });
  const address = server.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shownHost}:${actualPort}`;
}
