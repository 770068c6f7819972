/**
 * The free-text scrubber's cost grows linearly with the text, whatever the text (the old regular
 * expressions backtracked and took a minute on one 400 KB string). Proven by counting, not timing:
 * the scanner reads the text through charCodeAt only, so a String object that counts those reads
 * gives the exact work done. Twice the text must cost at most twice the reads (plus a constant),
 * and every character at most a constant number of reads.
 */
import { describe, expect, it } from 'vitest';
import { MAX_LOGGED_CHARS, scrubPersonalData, scrubText } from '../../shared/src/scrub-text.js';

const MB = 1024 * 1024;

/** Inputs built to make a backtracking matcher retry at every position. */
const ADVERSARIAL: Record<string, (n: number) => string> = {
  'plus seven and digits': (n) => `+7${'1'.repeat(n - 2)}`,
  'at signs': (n) => 'a@'.repeat(n / 2),
  'one digit run': (n) => '1'.repeat(n),
  'eight and parenthesis': (n) => '8 ('.repeat(Math.floor(n / 3)),
  'a domain that never ends': (n) => `a@${'b.'.repeat(n / 2 - 1)}`,
  'a local part that never ends': (n) => `${'a.'.repeat(n / 2 - 1)}x@`,
  'almost phones': (n) => '+7 916 123 45 6 '.repeat(Math.floor(n / 16)),
  'almost codes': (n) => ' 12345.'.repeat(Math.floor(n / 7)),
  'phones and codes': (n) => '+7 916 123 45 67 483920 '.repeat(Math.floor(n / 24)),
};

/** Characters the scanner reads to scrub `text`. */
function reads(text: string): number {
  let count = 0;
  const counted = Object.assign(new String(text), {
    charCodeAt(i: number): number {
      count++;
      return text.charCodeAt(i);
    },
  });
  scrubPersonalData(counted as unknown as string);
  return count;
}

describe('free-text scrubbing cost', () => {
  it.each(Object.entries(ADVERSARIAL))('is linear in the length for %s', (_name, make) => {
    const small = reads(make(MB));
    const large = reads(make(2 * MB));
    expect(large).toBeLessThanOrEqual(2 * small + 1_000);
    // The longest look-ahead (a phone) is 48 characters; the rest reads each character a few times.
    expect(large).toBeLessThan(60 * 2 * MB);
  });

  it('gives the same text as a plain string would', () => {
    const text = 'call +7 916 123-45-67 or ivan@example.ru, code 483920, order-20251234';
    expect(scrubPersonalData(new String(text) as unknown as string).toString()).toBe(scrubPersonalData(text));
  });

  it('cuts megabyte strings to a few kilobytes before scrubbing, with a marker naming the length', () => {
    for (const make of Object.values(ADVERSARIAL)) {
      const text = make(2 * MB);
      const scrubbed = scrubText(text);
      expect(scrubbed.length).toBeLessThan(MAX_LOGGED_CHARS + 64);
      expect(scrubbed).toMatch(new RegExp(`…\\[truncated, ${text.length} chars\\]$`));
    }
  });

  it('drops the word cut in half, so no fragment of an e-mail is left unscrubbed', () => {
    const text = `${'x '.repeat((MAX_LOGGED_CHARS - 10) / 2)}ivan.petrov@example.ru and more`;
    const scrubbed = scrubText(text);
    expect(scrubbed).not.toContain('ivan');
    expect(scrubbed).toContain('…[truncated');
  });
});
