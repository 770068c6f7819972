/**
 * Domain errors carry the spec's stable result codes; the HTTP layer maps them to the error
 * envelope and a status in one place (http/error-handler.ts). Services never build HTTP answers.
 */
import { ResultCode } from '../../shared/src/enums.js';

/** Texts of the codes the spec wants in Russian (1, 2, 3, 10); the others use the spec's wording. */
export const RUSSIAN_MESSAGES = {
  [ResultCode.AuthorizationError]: 'Ошибка авторизации',
  [ResultCode.InternalError]: 'Внутренняя ошибка сервера',
  [ResultCode.InvalidRequest]: 'Неверный формат запроса',
  [ResultCode.MarketplaceNotActive]: 'Учетная запись маркетплейса не активна',
} as const;

/** The same texts in English, for callers asking for it (Accept-Language; http/message-language.ts). */
export const ENGLISH_MESSAGES = {
  [ResultCode.AuthorizationError]: 'Authorization error',
  [ResultCode.InternalError]: 'Internal server error',
  [ResultCode.InvalidRequest]: 'Invalid request',
  [ResultCode.MarketplaceNotActive]: 'Marketplace account is not active',
} as const satisfies Record<keyof typeof RUSSIAN_MESSAGES, string>;

/** One text in each language the API answers in (Accept-Language; http/message-language.ts). */
export interface Bilingual {
  ru: string;
  en: string;
}

export type CodeWithRussianText = keyof typeof RUSSIAN_MESSAGES;

/** The text of a code with a Russian text (1, 2, 3, 10), with what exactly went wrong after it, each language whole. */
export function codeText(code: CodeWithRussianText, detail?: Bilingual): Bilingual {
  const ru = RUSSIAN_MESSAGES[code];
  const en = ENGLISH_MESSAGES[code];
  return detail ? { ru: `${ru}: ${detail.ru}`, en: `${en}: ${detail.en}` } : { ru, en };
}

/** What an error may add to its envelope beyond the code. */
export interface DomainErrorOptions {
  /** The whole message in each language; without it the message is the same in both. */
  localized?: Bilingual;
  /** The HTTP status when not the code's usual one (http/error-handler.ts). */
  status?: number;
  /** Retry-After seconds. */
  retryAfterSeconds?: number;
  /** Extension fields added to the envelope next to message and resultCode. */
  extra?: Readonly<Record<string, unknown>>;
}

export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly resultCode: ResultCode,
    message: string,
    readonly options: DomainErrorOptions = {},
  ) {
    super(message);
  }
}

/** An error of a code with a Russian text (1, 2, 3, 10): its message is Russian, and English for callers asking for it. */
export function codeError(code: CodeWithRussianText, detail?: Bilingual, options: Omit<DomainErrorOptions, 'localized'> = {}): DomainError {
  const localized = codeText(code, detail);
  return new DomainError(code, localized.ru, { ...options, localized });
}

/** Code 3 with the spec's Russian text, followed by what exactly is wrong (each language whole). */
export function invalidRequest(detail?: Bilingual, options: Omit<DomainErrorOptions, 'localized'> = {}): DomainError {
  return codeError(ResultCode.InvalidRequest, detail, options);
}

/** Code 4 (HTTP 429): refused for now; the caller may retry after `retryAfterSeconds`. */
export class RetryLaterError extends DomainError {
  /** `message` is the spec's Russian; `english` the same for callers asking for English. */
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    english?: string,
  ) {
    super(ResultCode.TooManyRequests, message, { retryAfterSeconds, ...(english ? { localized: { ru: message, en: english } } : {}) });
  }
}
