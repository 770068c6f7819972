/**
 * X-Request-Id: every answer carries one, and it is the request's `reqId` in the log line and on
 * the notifications the call causes. The caller's own id is kept when it is 1 to 128 printable
 * ASCII characters without spaces (so it cannot forge log fields or headers further on); any
 * other value, or none, is replaced by a new UUID.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';
export const MAX_REQUEST_ID_LENGTH = 128;

/** An id the service keeps: printable ASCII without spaces, at most MAX_REQUEST_ID_LENGTH. */
export const VALID_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** The caller's id when acceptable, else a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && VALID_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Fastify's `genReqId`: the request's id (`req.id`, the log's reqId). */
export function genReqId(req: IncomingMessage): string {
  return requestIdFrom(req.headers[REQUEST_ID_HEADER]);
}

/** First onRequest hook of the server: the id goes on the answer, whatever the answer turns out to be. */
export function answerRequestId(req: FastifyRequest, reply: FastifyReply, done: () => void): void {
  void reply.header(REQUEST_ID_HEADER, req.id);
  done();
}
