/**
 * What the cloud logs about each HTTP request: ONE line when it completes, with what an operator
 * needs (reqId from the request's child logger, method, route template, path, statusCode,
 * responseTime in ms, and the caller when its key was recognised), and nothing else: no headers,
 * no query string, no body. "request received" is a debug line, for requests that never complete.
 * Built from a handful of fields, so a request line costs a few microseconds.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AuthenticatedCaller } from './plugins/authentication.js';

/** Who called, as the route group's authentication recorded it (`marketplace:shop-one`); never the key. */
function callerOf(caller: AuthenticatedCaller | null): string | undefined {
  return caller ? `${caller.kind}:${caller.id}` : undefined;
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q >= 0 ? url.slice(0, q) : url;
}

interface RequestLine {
  method: string;
  route: string | undefined;
  url: string;
  statusCode: number;
  responseTime: number;
  caller: string | undefined;
}

function lineOf(request: FastifyRequest, reply: FastifyReply): RequestLine {
  return {
    method: request.method,
    route: request.routeOptions.url,
    url: pathOf(request.url),
    statusCode: reply.statusCode,
    responseTime: Math.round(reply.elapsedTime * 100) / 100,
    caller: callerOf(request.caller),
  };
}

export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ method: request.method, url: pathOf(request.url) }, 'request received');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const line = lineOf(request, reply);
    if (error) reply.log.error({ ...line, err: error }, 'request failed');
    else reply.log.info(line, 'request completed');
  }

  override routeNotFound(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.info({ method: request.method, url: pathOf(request.url) }, 'no such route');
  }
}
