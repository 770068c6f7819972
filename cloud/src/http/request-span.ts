/**
 * The server span of a traced HTTP operation. It continues the caller's trace when the request
 * carries a W3C `traceparent` header, and names the request's `X-Request-Id` when one came.
 * With tracing off the span is the API's no-op.
 */
import { SpanKind, context, propagation } from '@opentelemetry/api';
import type { FastifyRequest } from 'fastify';
import { CLOUD_TRACER, inSpan, tracer } from '../../../shared/src/tracing.js';

export async function inRequestSpan<T>(req: FastifyRequest, name: string, fn: () => Promise<T>): Promise<T> {
  const parent = propagation.extract(context.active(), req.headers);
  const requestId = req.headers['x-request-id'];
  const attributes = {
    'http.request.method': req.method,
    'http.route': req.routeOptions.url ?? req.url,
    ...(typeof requestId === 'string' ? { 'http.request_id': requestId } : {}),
  };
  return inSpan(tracer(CLOUD_TRACER), name, { kind: SpanKind.SERVER, attributes }, parent, () => fn());
}
