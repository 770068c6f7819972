/**
 * The one place where errors become HTTP answers: the spec's envelope `{message, resultCode}`.
 * DomainError -> its code (1, 10, 11 with 401; 5 with 403; 2 with 500; 4 with 429 and Retry-After;
 * the rest with 400), unless the error names its own status (Idempotency-Key: 409, 422) or adds
 * extension fields (`nearestLockers`). Malformed requests of any kind (invalid JSON, wrong Content-Type, schema violations)
 * -> 400 with code 3; refusals
 * of the transport keep their own status with code 3 (404 unknown path, 405 known path with
 * another method, 413 body too large; 414 and 431 come from transport-errors.ts). Anything else
 * is a bug: logged, answered 500 with code 2.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ResultCode } from '../../../shared/src/enums.js';
import { DomainError, codeText, invalidRequest, type Bilingual } from '../errors.js';
import { noteResultCode } from '../metrics/http.js';
import { inLanguage, messageLanguage } from './message-language.js';
import { validationText } from './validation-text.js';

export function httpStatusOf(code: number): 400 | 401 | 403 | 429 | 500 {
  switch (code) {
    case ResultCode.Forbidden:
      return 403;
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

/** Statuses of framework refusals that are answered as they are (with code 3); other 4xx become 400. */
const KEPT_CLIENT_STATUSES: ReadonlySet<number> = new Set([404, 405, 408, 413, 414, 431]);

/** The HTTP status of a refused request: 415 (wrong Content-Type) stays 400 as it always was. */
export function clientErrorStatus(status: number | undefined): number {
  return status !== undefined && KEPT_CLIENT_STATUSES.has(status) ? status : 400;
}

/** Sends the envelope (with a domain error's extension fields after the two of the spec); the status defaults to the one of the result code. */
export function sendEnvelope(
  reply: FastifyReply,
  resultCode: number,
  message: string | Bilingual,
  status: number = httpStatusOf(resultCode),
  extra?: Readonly<Record<string, unknown>>,
): FastifyReply {
  noteResultCode(reply, resultCode);
  const lang = messageLanguage(reply.request.headers['accept-language']);
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .header('content-language', lang)
    .send({ message: inLanguage(message, lang), resultCode, ...extra });
}

/** Code 3 with the spec's text and the reason, each language whole. */
export function invalidRequestMessage(detail: Bilingual): Bilingual {
  return codeText(ResultCode.InvalidRequest, detail);
}

/** Fastify's own refusals of a body, by their code; English is Fastify's text. */
export const FRAMEWORK_REFUSALS_RU: Readonly<Record<string, string>> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: 'тело запроса пусто, а Content-Type его объявляет',
  FST_ERR_CTP_INVALID_JSON_BODY: 'тело запроса не является JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'тело запроса слишком велико',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'этот Content-Type не принимается',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length не совпадает с телом запроса',
  FST_ERR_CTP_INVALID_TYPE: 'неверный Content-Type',
  FST_ERR_CTP_EMPTY_TYPE: 'пустой Content-Type',
};

/** A refusal of the framework in both languages: JSON that does not parse has no code of Fastify's own. */
function frameworkRefusal(err: FastifyError): Bilingual {
  const known = err.code ? FRAMEWORK_REFUSALS_RU[err.code] : undefined;
  const ru = known ?? (err instanceof SyntaxError ? FRAMEWORK_REFUSALS_RU.FST_ERR_CTP_INVALID_JSON_BODY : undefined);
  return { ru: ru ?? `запрос отклонён (HTTP ${err.statusCode ?? 400})`, en: err.message };
}

export function handleError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (err instanceof DomainError) {
    if (err.resultCode === ResultCode.InternalError) req.log.error({ err }, 'internal error');
    const { status, retryAfterSeconds, extra } = err.options;
    if (retryAfterSeconds !== undefined) void reply.header('retry-after', String(retryAfterSeconds));
    const { localized } = err.options;
    const message = localized ? localized[messageLanguage(req.headers['accept-language'])] : err.message;
    return sendEnvelope(reply, err.resultCode, message, status ?? httpStatusOf(err.resultCode), extra);
  }
  if (err.validation) {
    return sendEnvelope(reply, ResultCode.InvalidRequest, invalidRequestMessage(validationText(err.validationContext, err.validation ?? [])));
  }
  if (err.code?.startsWith('FST_ERR_CTP_') || (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500)) {
    return sendEnvelope(reply, ResultCode.InvalidRequest, invalidRequestMessage(frameworkRefusal(err)), clientErrorStatus(err.statusCode));
  }
  req.log.error({ err }, 'unhandled error');
  return sendEnvelope(reply, ResultCode.InternalError, codeText(ResultCode.InternalError));
}

/** `/a/:id/b` -> a pattern matching its request paths. */
function routePattern(url: string): RegExp {
  const escaped = url.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*')}$`);
}

export function installErrorHandling(app: FastifyInstance): void {
  // Every route of the app, to tell "no such path" (404) from "not with this method" (405).
  const routes: { methods: string[]; pattern: RegExp }[] = [];
  app.addHook('onRoute', (route) => {
    routes.push({ methods: [route.method].flat(), pattern: routePattern(route.url) });
  });

  app.setErrorHandler(handleError);
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods))];
    if (allowed.length > 0) {
      void reply.header('allow', allowed.join(', '));
      return sendEnvelope(reply, ResultCode.InvalidRequest, invalidRequestMessage({ ru: `у ${path} нет операции ${req.method}`, en: `${req.method} is not an operation of ${path}` }), 405);
    }
    return sendEnvelope(reply, ResultCode.InvalidRequest, invalidRequestMessage({ ru: `нет операции ${req.method} ${path}`, en: `no operation ${req.method} ${path}` }), 404);
  });
}

/** Operations with a body accept only JSON (code 3 otherwise). */
export function isJsonContentType(value: string | undefined): boolean {
  return !!value && /^application\/json\s*(;|$)/i.test(value);
}

/** preValidation hook: a route with a body schema refuses any Content-Type but JSON. */
export function requireJsonBody(req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  const hasBody = req.routeOptions.schema?.body !== undefined;
  done(hasBody && !isJsonContentType(req.headers['content-type']) ? invalidRequest({ ru: 'Content-Type должен быть application/json', en: 'Content-Type must be application/json' }) : undefined);
}
