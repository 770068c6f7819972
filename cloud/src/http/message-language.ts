/**
 * The language of the envelope's message: English when the request's Accept-Language prefers it
 * to Russian, otherwise Russian as the spec shows. Every message of the codes with a Russian text
 * (1, 2, 3, 10; errors.ts) is made in both languages, each whole (`Bilingual`, `codeText`), so a
 * message is in one language whichever the caller asked for; other codes keep the spec's wording.
 */
import { ENGLISH_MESSAGES, RUSSIAN_MESSAGES, type Bilingual } from '../errors.js';

export type MessageLanguage = 'ru' | 'en';

/** `en` when an English tag outranks every Russian one (by q, then order); `ru` otherwise. */
export function messageLanguage(acceptLanguage: string | string[] | undefined): MessageLanguage {
  const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(',') : (acceptLanguage ?? '');
  let best: { lang: MessageLanguage; q: number } | undefined;
  for (const part of header.split(',').slice(0, 20)) {
    const [tag = '', ...params] = part.trim().toLowerCase().split(';');
    const lang = tag === 'en' || tag.startsWith('en-') ? 'en' : tag === 'ru' || tag.startsWith('ru-') ? 'ru' : undefined;
    if (!lang) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) continue;
    if (!best || q > best.q) best = { lang, q };
  }
  return best?.lang ?? 'ru';
}

/** The message in the language; a bare text of codes 1, 2, 3 and 10 becomes its English text. */
export function inLanguage(message: string | Bilingual, lang: MessageLanguage): string {
  if (typeof message !== 'string') return message[lang];
  if (lang === 'ru') return message;
  for (const [code, ru] of Object.entries(RUSSIAN_MESSAGES)) {
    if (message === ru) return ENGLISH_MESSAGES[Number(code) as keyof typeof ENGLISH_MESSAGES];
  }
  return message;
}
