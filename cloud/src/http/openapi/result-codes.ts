/**
 * What the OpenAPI document says about each `resultCode`: its name, when it is answered, and the
 * message an example shows. The HTTP status of a code is httpStatusOf() (error-handler.ts), the
 * one place that maps codes to statuses.
 */
import { ResultCode } from '../../../../shared/src/enums.js';
import { RESULT_CODES } from '../../contract/common.js';
import { RUSSIAN_MESSAGES } from '../../errors.js';
import { TOO_MANY_WRONG_CODES_MESSAGE } from '../../guard/code-guessing.js';
import { TOO_MANY_REQUESTS_MESSAGE } from '../../guard/request-limits.js';
import type { KeyOwnerKind } from '../auth.js';
import { ISSUE_TEXTS } from '../../contract/issue-texts.js';
import { httpStatusOf, invalidRequestMessage } from '../error-handler.js';
import { validationText } from '../validation-text.js';

export interface ResultCodeInfo {
  /** The constant's name in shared/src/enums.ts (also `x-enum-varnames`). */
  name: string;
  /** When it is answered. */
  description: string;
  /** The message of the example answer. */
  message: string;
}

type CodeName = keyof typeof ResultCode;

const INFO: Record<CodeName, Omit<ResultCodeInfo, 'name'>> = {
  AuthorizationError: {
    description: "no key in the operation's header, a key there not accepted (unknown, revoked or of another kind), or the key sent in another kind's header; the message says which",
    message: `${RUSSIAN_MESSAGES[ResultCode.AuthorizationError]}: нет ключа в заголовке X-Service-Api-Key`,
  },
  InternalError: { description: 'a failure of the service; the request may be sent again', message: RUSSIAN_MESSAGES[ResultCode.InternalError] },
  InvalidRequest: {
    description: 'malformed request (JSON, Content-Type, types, limits, unknown locker, date in the past); the message says what; nothing changed',
    message: invalidRequestMessage(validationText('body', [{ instancePath: '/externalId', keyword: 'too_small', message: ISSUE_TEXTS.notEmpty.en }])).ru,
  },
  TooManyRequests: {
    description: 'rate limit of the caller, or lockout after too many wrong courier codes; retry after Retry-After seconds',
    message: `${TOO_MANY_REQUESTS_MESSAGE}: не более 3000 за 10 с, повторите через 4 с`,
  },
  Forbidden: {
    description: 'an operator action by a viewer, or a console session request without its X-CSRF-Token; nothing changed',
    message: 'CSRF token missing or wrong: send the X-CSRF-Token the session answered',
  },
  MarketplaceNotActive: { description: 'the marketplace of the key is not active', message: RUSSIAN_MESSAGES[ResultCode.MarketplaceNotActive] },
  OrganizationNotActive: { description: "the marketplace's organization is not active", message: 'Marketplace organization not active' },
  NoCellsForAllParcels: { description: 'not every parcel finds a fitting free cell', message: 'Not cells for all parcels' },
  OrderNotFound: { description: 'no order of the marketplace has a parcel with this barcode', message: 'Order not found' },
  LogistNotFound: { description: 'unknown courier, or a wrong access code', message: 'Logist not found' },
  CourierRouteNotFound: { description: "no active route of the courier goes to the order's locker", message: 'Courier route not found' },
  PostOperationNotFound: { description: 'no order of the marketplace has this externalId', message: 'Post operation not found' },
  PostOperationWrongState: { description: 'the order is no longer New (a parcel is in the locker, or it ended)', message: 'Post operation wrong state' },
  PackagingNotFound: { description: 'the order has no parcel with this barcode', message: 'Packaging not found' },
  PackagingCanceled: { description: 'the position is already cancelled', message: 'Packaging canceled' },
  PackagingLoadedOrIssued: { description: 'the parcel was already taken by the customer or collected', message: 'Packaging loaded or issued' },
  OperationNotFound: { description: 'no order of the marketplace has this externalId', message: 'Operation not found' },
  OperationBadState: { description: 'storage can be extended only in state 3 (Courier loaded)', message: 'Operation have bad state' },
  PermissionProfileNotSet: { description: "a locker of the route is outside the partner's permission profile", message: 'Postamat permission profile not set for logist' },
  CourierAlreadyExists: {
    description: 'another courier of the partner has this e-mail or phone',
    message: 'Courier already exists for the logist: courier.phone already used by its courier with externalId CR-12',
  },
  CourierExtIdEmpty: { description: "the courier's externalId is empty", message: 'Courier ext-id id empty' },
};

const NAME_OF = new Map<number, CodeName>(Object.entries(ResultCode).map(([name, code]) => [code, name as CodeName]));

export function resultCodeInfo(code: ResultCode): ResultCodeInfo {
  const name = NAME_OF.get(code)!;
  return { name, ...INFO[name] };
}

/** The codes every operation may answer, by the key it asks for: authentication (and an operator's role), validation, rate limit, failure. */
export function commonCodes(key: KeyOwnerKind | undefined): ResultCode[] {
  const auth: Record<KeyOwnerKind, ResultCode[]> = {
    marketplace: [ResultCode.AuthorizationError, ResultCode.MarketplaceNotActive, ResultCode.OrganizationNotActive],
    partner: [ResultCode.AuthorizationError],
    // A viewer's action or a session request without its CSRF token (403).
    operator: [ResultCode.AuthorizationError, ResultCode.Forbidden],
  };
  return [...(key ? auth[key] : []), ResultCode.InvalidRequest, ResultCode.TooManyRequests, ResultCode.InternalError];
}

/** The lockout of order/detail has its own message. */
export const CODE_GUESSING_MESSAGE = `${TOO_MANY_WRONG_CODES_MESSAGE}: повторите через 900 с`;

/** The `resultCode` schema of the ErrorEnvelope component: every code, each described. */
export function resultCodeSchema(): Record<string, unknown> {
  const lines = RESULT_CODES.map((c) => `- \`${c}\` ${resultCodeInfo(c).name} (HTTP ${httpStatusOf(c)}): ${resultCodeInfo(c).description}`);
  return {
    type: 'integer',
    enum: RESULT_CODES,
    description: `The stable result code; the HTTP status follows from it.\n\n${lines.join('\n')}`,
    'x-enum-varnames': RESULT_CODES.map((c) => resultCodeInfo(c).name),
    'x-enum-descriptions': RESULT_CODES.map((c) => resultCodeInfo(c).description),
  };
}
