/**
 * X-Request-Id in the document: the optional request header every operation takes and the
 * response header every answer carries (rules in http/request-id.ts). The caller's value is never
 * refused, only replaced, so the request parameter states the rule in words, not as a pattern
 * (its maxLength bounds what a client should send, as every request string is bounded).
 */
import { MAX_REQUEST_ID_LENGTH, VALID_REQUEST_ID } from '../request-id.js';
import type { JsonObject, Parameter } from './document-types.js';

export const REQUEST_ID_PARAMETER: Parameter = {
  in: 'header',
  name: 'X-Request-Id',
  required: false,
  description:
    `The caller's id for this request, kept when it is 1 to ${MAX_REQUEST_ID_LENGTH} printable ASCII characters without spaces; ` +
    'any other value, or none, is replaced by a new UUID (never refused). The answer carries the id in use, it is the reqId of the ' +
    "request's log line, and the notifications the request causes are sent with it.",
  schema: { type: 'string', minLength: 1, maxLength: MAX_REQUEST_ID_LENGTH },
};

export const REQUEST_ID_HEADER_DOC: JsonObject = {
  description: "The request's id: the caller's X-Request-Id when it was kept, else a new UUID. Present on every answer.",
  required: true,
  schema: { type: 'string', pattern: VALID_REQUEST_ID.source },
};
