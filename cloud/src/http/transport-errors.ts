/**
 * Refusals that happen before a route sees the request, answered in the spec's envelope like every
 * other error (code 3): what Node's HTTP parser refuses (431 headers too large, 414 a request line
 * too long, 408 too slow, 400 anything else malformed), what the router refuses (400 a path that is
 * not valid percent-encoding, 414 a path parameter too long), and query strings that are not valid
 * percent-encoded UTF-8 (400; Fastify would otherwise drop the broken parts silently).
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { ResultCode } from '../../../shared/src/enums.js';
import { type Bilingual, type DomainError, codeText, invalidRequest } from '../errors.js';
import { invalidRequestMessage, sendEnvelope } from './error-handler.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/** Longest URL served (414 beyond); Node's header limit (16 KiB) covers the request line and the headers together. */
export const MAX_URL_LENGTH = 8 * 1024;
const CRLF = Buffer.from('\r\n');
const URL_TOO_LONG: Bilingual = { ru: 'слишком длинный URL', en: 'URL too long' };

function parserRefusal(err: ConnectionError): { status: number; reason: Bilingual } {
  // What the parser had read when it gave up (a Buffer, whatever the type says).
  const read: unknown = err.rawPacket;
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: { ru: 'запрос не получен вовремя', en: 'the request was not received in time' } };
    case 'HPE_HEADER_OVERFLOW':
      // Over the limit of request line and headers: the URL is to blame when the request line alone is too long
      // (or had not even ended in what was read).
      return Buffer.isBuffer(read) && read.indexOf(CRLF) >= 0 && read.indexOf(CRLF) <= MAX_URL_LENGTH + 32
        ? { status: 431, reason: { ru: 'заголовки запроса слишком велики', en: 'request headers too large' } }
        : { status: 414, reason: URL_TOO_LONG };
    default:
      return { status: 400, reason: { ru: 'запрос HTTP искажён', en: 'malformed HTTP request' } };
  }
}

/** How long a refused connection keeps reading (and discarding) what the client still sends, at most. */
const LINGER_MS = 2_000;
/** Sockets already answered: the parser reports its error again for every further chunk it is fed. */
const answered = new WeakSet<Socket>();

/**
 * Fastify's `clientErrorHandler`: the parser gave up, so there is no reply object; the envelope goes on the socket.
 * The connection is closed the way servers close after an early answer (a lingering close): the answer and a FIN
 * go out, and what the client is still writing (the rest of a 1 MB request line) is read and dropped for a
 * moment before the socket is destroyed. Destroying at once with unread bytes makes the kernel send a reset,
 * which can discard the answer on the client's side before it reads it: the client then sees EPIPE, no answer.
 */
export function clientErrorHandler(this: FastifyInstance, err: ConnectionError, socket: Socket): void {
  if (answered.has(socket)) return;
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  answered.add(socket);
  const { status, reason } = parserRefusal(err);
  this.log.debug({ code: err.code, status }, 'malformed HTTP request refused');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // No request to read Accept-Language from: the spec's language.
  const body = JSON.stringify({ message: invalidRequestMessage(reason).ru, resultCode: ResultCode.InvalidRequest });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // The parser cannot go on: whatever the client does, the socket is gone after the linger (no half-open sockets).
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
  socket.resume();
}

/** Fastify's `frameworkErrors`: the router's refusals before any route or hook. */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  // Before any hook: the answer gets its X-Request-Id here.
  void reply.header(REQUEST_ID_HEADER, req.id);
  if (err.code === 'FST_ERR_BAD_URL') {
    void sendEnvelope(reply, ResultCode.InvalidRequest, invalidRequestMessage({ ru: 'путь не является корректной процентной кодировкой', en: 'the path is not valid percent-encoding' }), 400);
  } else if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void sendEnvelope(reply, ResultCode.InvalidRequest, invalidRequestMessage({ ru: 'слишком длинный параметр пути', en: 'a path parameter is too long' }), 414);
  } else {
    reply.log.error({ err }, 'router error');
    void sendEnvelope(reply, ResultCode.InternalError, codeText(ResultCode.InternalError));
  }
}

/** True when every `&`-separated part of a query string decodes as percent-encoded UTF-8. */
export function isWellFormedQuery(query: string): boolean {
  for (const part of query.split('&')) {
    try {
      decodeURIComponent(part);
    } catch {
      return false;
    }
  }
  return true;
}

/** onRequest hook of the whole server: a URL too long is 414, a query that does not decode is code 3, not ignored. */
export function checkUrl(req: FastifyRequest, reply: FastifyReply, done: (err?: DomainError) => void): void {
  if (req.url.length > MAX_URL_LENGTH) {
    void sendEnvelope(reply, ResultCode.InvalidRequest, invalidRequestMessage(URL_TOO_LONG), 414);
    return;
  }
  const at = req.url.indexOf('?');
  done(at >= 0 && !isWellFormedQuery(req.url.slice(at + 1)) ? invalidRequest({ ru: 'строка запроса не является корректной процентной кодировкой UTF-8', en: 'the query string is not valid percent-encoded UTF-8' }) : undefined);
}

/** The Fastify options that route these refusals here. */
export const transportErrorOptions = {
  clientErrorHandler,
  frameworkErrors,
} satisfies Pick<FastifyServerOptions, 'clientErrorHandler' | 'frameworkErrors'>;
