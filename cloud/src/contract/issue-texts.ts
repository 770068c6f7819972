/**
 * The contract's own texts for what is wrong with a field, in English (the schemas' messages, as
 * zod reports them) and in Russian (http/validation-text.ts puts them into the default message).
 * Built-in checks without a text of their own are described from their issue code there.
 */
import type { Bilingual } from '../errors.js';

export const ISSUE_TEXTS = {
  notEmpty: { en: 'must not be empty', ru: 'не может быть пустым' },
  identifierCharacters: { en: 'must be valid Unicode without lone surrogates or control characters', ru: 'допустим только корректный Юникод без одиночных суррогатов и управляющих символов' },
  textCharacters: {
    en: 'must be valid Unicode without lone surrogates or control characters other than tab and line breaks',
    ru: 'допустим только корректный Юникод без одиночных суррогатов и управляющих символов, кроме табуляции и переводов строки',
  },
  phone: { en: 'expected +7 followed by ten digits', ru: 'ожидается +7 и десять цифр' },
  email: { en: 'expected an e-mail address', ru: 'ожидается адрес электронной почты' },
  calendarDate: { en: 'expected a calendar date YYYY-MM-DD', ru: 'ожидается дата в виде ГГГГ-ММ-ДД' },
  oneOfPostamatIds: { en: 'send either postamatId or postamatIds', ru: 'нужен либо postamatId, либо postamatIds' },
  courierOrCode: { en: 'courierExternalId or postamatAccessCode is required', ru: 'нужен courierExternalId или postamatAccessCode' },
} as const satisfies Record<string, Bilingual>;

const RUSSIAN_BY_ENGLISH = new Map<string, string>(Object.values(ISSUE_TEXTS).map((t) => [t.en, t.ru]));

/** The Russian of one of the contract's texts, found by its English. */
export function russianIssueText(english: string | undefined): string | undefined {
  return english === undefined ? undefined : RUSSIAN_BY_ENGLISH.get(english);
}
