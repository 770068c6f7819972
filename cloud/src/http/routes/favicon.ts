/** The project's icon at /favicon.ico, which browsers ask for on every page (API docs, console). */
import type { FastifyPluginAsync } from 'fastify';
import { FAVICON_CONTENT_TYPE, FAVICON_ICO } from '../../../../shared/src/favicon.js';

export const faviconRoute: FastifyPluginAsync = (app) => {
  app.get('/favicon.ico', { schema: { hide: true } }, (_req, reply) =>
    reply.type(FAVICON_CONTENT_TYPE).header('Cache-Control', 'public, max-age=86400').send(FAVICON_ICO),
  );
  return Promise.resolve();
};
