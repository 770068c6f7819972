/**
 * What a schema violation says, in Russian and in English, each whole: where (the request part and
 * the field's path, an identifier in both) and what is wrong. English is zod's own text; Russian is
 * the contract's own text when the issue has one (contract/issue-texts.ts; a refinement with a
 * text made at the time gives it as `params.ru`), else made here from the issue's code and parameters.
 */
import { russianIssueText } from '../contract/issue-texts.js';
import type { Bilingual } from '../errors.js';

/** A validation issue as Fastify passes it on (fastify-type-provider-zod: the zod issue's code and fields). */
export interface ValidationIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** The request parts as Fastify names them (`validationContext`). */
const PART_RU: Record<string, string> = { body: 'тело запроса', querystring: 'параметры запроса', params: 'путь', headers: 'заголовки' };

const TYPE_RU: Record<string, string> = {
  string: 'строка',
  number: 'число',
  int: 'целое число',
  bigint: 'целое число',
  boolean: 'логическое значение',
  object: 'объект',
  array: 'массив',
  date: 'дата',
  null: 'null',
};

const FORMAT_RU: Record<string, string> = {
  email: 'адрес электронной почты',
  url: 'адрес URL',
  uuid: 'UUID',
  datetime: 'дата и время ISO 8601',
  date: 'дата ISO 8601 (ГГГГ-ММ-ДД)',
  time: 'время ISO 8601',
  ipv4: 'адрес IPv4',
  ipv6: 'адрес IPv6',
};

/** Russian plural form: 1 символ, 2 символа, 5 символов. */
function plural(n: string, one: string, few: string, many: string): string {
  const v = Math.abs(Number(n)) % 100;
  const last = v % 10;
  if (v >= 11 && v <= 19) return many;
  return last === 1 ? one : last >= 2 && last <= 4 ? few : many;
}

const num = (v: unknown): string => (typeof v === 'number' || typeof v === 'bigint' ? String(v) : '?');
const listOf = (v: unknown): string => (Array.isArray(v) ? v.slice(0, 10).map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(', ') : '');

function sizeRu(params: Record<string, unknown>, bound: 'min' | 'max'): string {
  const limit = num(bound === 'min' ? params.minimum : params.maximum);
  const inclusive = params.inclusive !== false;
  switch (params.origin) {
    case 'string':
      return `длина не ${bound === 'min' ? 'меньше' : 'больше'} ${limit} ${plural(limit, 'символа', 'символов', 'символов')}`;
    case 'array':
    case 'set':
      return `не ${bound === 'min' ? 'меньше' : 'больше'} ${limit} ${plural(limit, 'элемента', 'элементов', 'элементов')}`;
    default:
      if (bound === 'min') return inclusive ? `значение не меньше ${limit}` : `значение больше ${limit}`;
      return inclusive ? `значение не больше ${limit}` : `значение меньше ${limit}`;
  }
}

/** What is wrong, in Russian, from the zod issue's code and parameters. */
export function issueRu(issue: ValidationIssue): string {
  const own = russianIssueText(issue.message);
  if (own) return own;
  const params = issue.params ?? {};
  switch (issue.keyword ?? '') {
    case 'invalid_type': {
      // zod keeps no input in the issue; its English text says what it received.
      if (/received undefined$/.test(issue.message ?? '')) return 'поле обязательно';
      const expected = typeof params.expected === 'string' ? (TYPE_RU[params.expected] ?? params.expected) : 'другой тип';
      return `ожидается ${expected}`;
    }
    case 'too_small':
      return sizeRu(params, 'min');
    case 'too_big':
      return sizeRu(params, 'max');
    case 'invalid_format': {
      const format = typeof params.format === 'string' ? params.format : '';
      return format in FORMAT_RU ? `ожидается ${FORMAT_RU[format]}` : 'неверный формат';
    }
    case 'not_multiple_of':
      return `значение должно быть кратно ${num(params.divisor)}`;
    case 'unrecognized_keys':
      return `лишние поля: ${listOf(params.keys)}`;
    case 'invalid_value':
      return `допустимые значения: ${listOf(params.values)}`;
    case 'invalid_union':
      return 'значение не подходит ни под один из вариантов';
    case 'invalid_key':
      return 'неверный ключ';
    case 'invalid_element':
      return 'неверный элемент';
    case 'custom': {
      const ru = (params.params as { ru?: unknown } | undefined)?.ru;
      return typeof ru === 'string' ? ru : 'неверное значение';
    }
    default:
      return 'неверное значение';
  }
}

/** The first few issues, `part.path: what` each, in both languages. */
export function validationText(part: string | undefined, issues: readonly ValidationIssue[]): Bilingual {
  const where = part ?? 'body';
  const path = (i: ValidationIssue): string => (i.instancePath ?? '').replaceAll('/', '.').replace(/\.$/, '');
  const shown = issues.slice(0, 5);
  return {
    ru: shown.map((i) => `${PART_RU[where] ?? 'запрос'}${path(i) ? `, поле ${path(i).slice(1)}` : ''}: ${issueRu(i)}`).join('; '),
    en: shown.map((i) => `${where}${path(i)}: ${i.message ?? 'invalid'}`).join('; '),
  };
}
