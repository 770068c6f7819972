/**
 * The one place where errors become HTTP answers: the spec's envelope `{message, resultCode}`.
 * DomainError -> its code (1, 10, 11 with 401; 2 with 500; 4 with 429 and Retry-After; the rest
 * with 400). Malformed requests of any kind (invalid JSON, wrong Content-Type, schema violations,
 * oversized bodies) -> 400 with code 3. Anything else is a bug: logged, answered 500 with code 2.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ResultCode } from '../../../shared/src/enums.js';
import { DomainError, RUSSIAN_MESSAGES, RetryLaterError, invalidRequest } from '../errors.js';

export function httpStatusOf(code: number): 400 | 401 | 429 | 500 {
  switch (code) {
    case ResultCode.AuthorizationError:
    case ResultCode.MarketplaceNotActive:
    case ResultCode.OrganizationNotActive:
      return 401;
    case ResultCode.InternalError:
      return 500;
    case ResultCode.TooManyRequests:
      return 429;
    default:
      return 400;
  }
}

function envelope(reply: FastifyReply, resultCode: number, message: string): FastifyReply {
  return reply.code(httpStatusOf(resultCode)).type('application/json; charset=utf-8').send({ message, resultCode });
}

interface ValidationIssue {
  instancePath?: string;
  message?: string;
}

function validationText(err: FastifyError): string {
  const where = err.validationContext ?? 'request';
  const issues = (err.validation ?? []) as ValidationIssue[];
  return issues
    .slice(0, 5)
    .map((i) => `${where}${(i.instancePath ?? '').replaceAll('/', '.').replace(/\.$/, '')}: ${i.message ?? 'invalid'}`)
    .join('; ');
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof DomainError) {
      if (err.resultCode === ResultCode.InternalError) req.log.error({ err }, 'internal error');
      if (err instanceof RetryLaterError) reply.header('retry-after', String(err.retryAfterSeconds));
      return envelope(reply, err.resultCode, err.message);
    }
    if (err.validation) {
      return envelope(reply, ResultCode.InvalidRequest, `${RUSSIAN_MESSAGES[ResultCode.InvalidRequest]}: ${validationText(err)}`);
    }
    if (err.code?.startsWith('FST_ERR_CTP_') || (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500)) {
      return envelope(reply, ResultCode.InvalidRequest, `${RUSSIAN_MESSAGES[ResultCode.InvalidRequest]}: ${err.message}`);
    }
    req.log.error({ err }, 'unhandled error');
    return envelope(reply, ResultCode.InternalError, RUSSIAN_MESSAGES[ResultCode.InternalError]);
  });
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({ message: `${RUSSIAN_MESSAGES[ResultCode.InvalidRequest]}: no operation ${req.method} ${req.url.split('?')[0]}`, resultCode: ResultCode.InvalidRequest }),
  );
}

/** Operations with a body accept only JSON (code 3 otherwise). */
export function isJsonContentType(value: string | undefined): boolean {
  return !!value && /^application\/json\s*(;|$)/i.test(value);
}

/** preValidation hook: a route with a body schema refuses any Content-Type but JSON. */
export function requireJsonBody(req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  const hasBody = req.routeOptions.schema?.body !== undefined;
  done(hasBody && !isJsonContentType(req.headers['content-type']) ? invalidRequest('Content-Type must be application/json') : undefined);
}
