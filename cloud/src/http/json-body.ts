/**
 * JSON bodies are read as bytes and must be valid UTF-8 (code 3 otherwise): decoding would turn
 * invalid bytes into U+FFFD, and the order would then hold a text the marketplace never sent.
 * Parsing itself is Fastify's (prototype poisoning refused).
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../errors.js';

export function installJsonBodyParser(server: FastifyInstance): void {
  const parseJson = server.getDefaultJsonParser('error', 'error');
  server.removeContentTypeParser('application/json');
  server.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body: Buffer, done) => {
    if (!isUtf8(body)) {
      done(invalidRequest({ ru: 'тело запроса не является корректным UTF-8', en: 'the body is not valid UTF-8' }), undefined);
      return;
    }
    void parseJson(req, body.toString('utf8'), done);
  });
}
