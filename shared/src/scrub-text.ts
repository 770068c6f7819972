/**
 * Free-text scrubbing for logs: e-mails, phone numbers and keypad / pick-up / access codes become
 * `[email]`, `[phone]`, `[code]`; digit runs that belong to ids, paths, versions and times stay.
 *
 * A hand-written single pass instead of regular expressions, so that the cost is linear in the
 * length by construction (a log line never stalls the process, whatever a request carried):
 * - the main loop moves forward one character, or past a whole digit run, per step;
 * - a phone attempt reads at most PHONE_LOOKAHEAD characters;
 * - an e-mail's local part is never re-read (its start is remembered while moving on), and its
 *   domain is read once from the `@` up to the first character that no domain has; no domain
 *   crosses an `@`, so domain reads never overlap.
 * Strings longer than MAX_LOGGED_CHARS are cut first (with a marker), so a megabyte input costs
 * no more than a few kilobytes.
 */

/** Longest string kept in a log line; the rest is replaced by a marker naming the full length. */
export const MAX_LOGGED_CHARS = 4096;

/** Most characters a phone number takes, separators included (`+` and 15 digits, 2 per gap). */
const PHONE_LOOKAHEAD = 48;
const MAX_SEPARATOR_RUN = 2;

/** Character codes the scanner compares against. */
const Ch = {
  Tab: 9,
  Space: 32,
  Hash: 35,
  Percent: 37,
  LParen: 40,
  RParen: 41,
  Plus: 43,
  Minus: 45,
  Dot: 46,
  Slash: 47,
  D0: 48,
  D7: 55,
  D8: 56,
  D9: 57,
  Colon: 58,
  At: 64,
  Backslash: 92,
  Underscore: 95,
} as const;

function isDigit(c: number): boolean {
  return c >= Ch.D0 && c <= Ch.D9;
}

/**
 * Letters: ASCII, Latin-1 and Latin Extended, Greek, Cyrillic, and the CJK and Hangul blocks. Other
 * non-ASCII characters (no-break spaces, guillemets, dashes, the numero sign) separate words, so
 * that `«483920»` or `№ 483920` is still a standalone number.
 */
function isLetter(c: number): boolean {
  if (c < 0x80) return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return (
    (c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7) ||
    (c >= 0x370 && c <= 0x52f) ||
    (c >= 0x3040 && c <= 0x9fff) ||
    (c >= 0xac00 && c <= 0xd7a3)
  );
}

function isAlnum(c: number): boolean {
  return isDigit(c) || isLetter(c);
}

/** Characters of an e-mail's local part. */
function isLocalChar(c: number): boolean {
  return isAlnum(c) || c === Ch.Dot || c === Ch.Underscore || c === Ch.Percent || c === Ch.Plus || c === Ch.Minus;
}

function isDomainLabelChar(c: number): boolean {
  return isAlnum(c) || c === Ch.Minus;
}

/** Characters that glue a digit run to a neighbouring word: `order-20251234`, `/tmp/x/123456`, `v1.123456`. */
function isJoiner(c: number): boolean {
  return c === Ch.Dot || c === Ch.Minus || c === Ch.Underscore || c === Ch.Slash || c === Ch.Backslash || c === Ch.At || c === Ch.Colon || c === Ch.Hash;
}

/** Between a phone's digits: spaces (also no-break and thin ones), hyphens and dashes, parentheses, dots. */
function isPhoneSeparator(c: number): boolean {
  return (
    c === Ch.Space || c === Ch.Tab || c === Ch.Minus || c === Ch.LParen || c === Ch.RParen || c === Ch.Dot ||
    c === 0xa0 || c === 0x2009 || c === 0x202f || c === 0x2010 || c === 0x2011 || c === 0x2012 || c === 0x2013
  );
}

/** May a number start at `i`? Not inside a word, an id, a path or a time (`10:123456` with a digit before the colon). */
function startsToken(text: string, i: number): boolean {
  if (i === 0) return true;
  const p = text.charCodeAt(i - 1);
  if (isAlnum(p)) return false;
  if (p === Ch.Colon) return i < 2 || !isDigit(text.charCodeAt(i - 2));
  return !isJoiner(p) && p !== Ch.Plus;
}

/** May a number end before `j`? Not when a letter or digit follows, nor a joiner that leads on into a word. */
function endsToken(text: string, j: number): boolean {
  if (j >= text.length) return true;
  const c = text.charCodeAt(j);
  if (isAlnum(c)) return false;
  if (!isJoiner(c)) return true;
  return j + 1 >= text.length || !isAlnum(text.charCodeAt(j + 1));
}

/**
 * End of a phone number starting at `i` (`+` and 10-15 digits, or an 11-digit Russian number
 * starting with 8 or 7), separators allowed between digits; -1 when there is none.
 */
function phoneEnd(text: string, i: number): number {
  const first = text.charCodeAt(i);
  const plus = first === Ch.Plus;
  const limit = Math.min(text.length, i + PHONE_LOOKAHEAD);
  let digits = plus ? 0 : 1;
  let lastDigitEnd = plus ? -1 : i + 1;
  let separators = 0;
  for (let j = i + 1; j < limit; j++) {
    const c = text.charCodeAt(j);
    if (isDigit(c)) {
      digits++;
      lastDigitEnd = j + 1;
      separators = 0;
      if (digits > 15) return -1;
    } else if (isPhoneSeparator(c) && ++separators <= MAX_SEPARATOR_RUN) {
      continue;
    } else {
      break;
    }
  }
  const fits = plus ? digits >= 10 : digits === 11;
  return fits && endsToken(text, lastDigitEnd) ? lastDigitEnd : -1;
}

/**
 * End of the e-mail domain starting at `i` (labels joined by dots, the last one of two or more
 * letters); -1 when there is none. Reads only domain characters and dots, so it stops at the next `@`.
 */
function domainEnd(text: string, i: number): number {
  let j = i;
  let best = -1;
  let labels = 0;
  for (;;) {
    const start = j;
    let lettersOnly = true;
    while (j < text.length && isDomainLabelChar(text.charCodeAt(j))) {
      if (!isLetter(text.charCodeAt(j))) lettersOnly = false;
      j++;
    }
    if (j === start) break;
    labels++;
    if (labels >= 2 && lettersOnly && j - start >= 2) best = j;
    if (j + 1 < text.length && text.charCodeAt(j) === Ch.Dot && isDomainLabelChar(text.charCodeAt(j + 1))) j++;
    else break;
  }
  return best;
}

function isWordChar(c: number): boolean {
  return isLocalChar(c) || c === Ch.At;
}

/**
 * A long string cut: the head kept and the marker to append. A word cut in half (an e-mail, a
 * number) is dropped whole, up to 256 characters back, so that no recognisable fragment of it
 * stays without being scrubbed.
 */
function cut(text: string): [head: string, marker: string] {
  if (text.length <= MAX_LOGGED_CHARS) return [text, ''];
  let end = MAX_LOGGED_CHARS;
  const stop = MAX_LOGGED_CHARS - 256;
  if (isWordChar(text.charCodeAt(end))) {
    while (end > stop && isWordChar(text.charCodeAt(end - 1))) end--;
  }
  return [text.slice(0, end), `…[truncated, ${text.length} chars]`];
}

/** The string cut to MAX_LOGGED_CHARS, with a marker naming the full length (for ids: nothing else changes). */
export function truncateForLog(text: string): string {
  const [head, marker] = cut(text);
  return head + marker;
}

/** The text with e-mails, phones and codes replaced; long texts are cut first (truncateForLog). */
export function scrubText(text: string): string {
  const [head, marker] = cut(text);
  return scrubPersonalData(head) + marker;
}

/** The single pass itself, over the whole text, however long (linear: see the top of this file). */
export function scrubPersonalData(text: string): string {
  const n = text.length;
  let out = '';
  let copied = 0;
  let localStart = -1;
  const replace = (from: number, to: number, mark: string): void => {
    out += text.slice(copied, from) + mark;
    copied = to;
    localStart = -1;
  };
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === Ch.At) {
      const end = localStart >= 0 ? domainEnd(text, i + 1) : -1;
      if (end > 0) {
        replace(localStart, end, '[email]');
        i = end;
      } else {
        localStart = -1;
        i++;
      }
      continue;
    }
    if ((isDigit(c) || c === Ch.Plus) && startsToken(text, i)) {
      const phone = c === Ch.Plus || c === Ch.D7 || c === Ch.D8 ? phoneEnd(text, i) : -1;
      if (phone > 0) {
        replace(i, phone, '[phone]');
        i = phone;
        continue;
      }
      if (isDigit(c)) {
        let j = i + 1;
        while (j < n && isDigit(text.charCodeAt(j))) j++;
        const length = j - i;
        if (length >= 6 && length <= 8 && endsToken(text, j)) {
          replace(i, j, '[code]');
        } else if (localStart < 0) {
          localStart = i;
        }
        i = j;
        continue;
      }
    }
    if (isLocalChar(c)) {
      if (localStart < 0) localStart = i;
    } else {
      localStart = -1;
    }
    i++;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
