/**
 * Randomness of the cloud behind one small object, so tests can make it predictable. The default
 * uses the operating system's cryptographic source (codes must not be guessable).
 */
import { randomInt, randomUUID } from 'node:crypto';

export interface RandomSource {
  uuid(): string;
  /** A string of `length` decimal digits, uniformly random (leading zeros allowed). */
  digits(length: number): string;
}

export const cryptoRandom: RandomSource = {
  uuid: () => randomUUID(),
  digits(length) {
    let out = '';
    for (let i = 0; i < length; i++) out += String(randomInt(10));
    return out;
  },
};

/** Draws before `uniqueDigits` gives up: a space that crowded needs longer codes, not more tries. */
export const UNIQUE_CODE_ATTEMPTS = 50;

/**
 * Random digits that `isTaken` does not refuse (codes unique where they are used). Throws, naming
 * `what`, when `attempts` draws in a row were taken.
 */
export async function uniqueDigits(
  random: RandomSource,
  length: number,
  isTaken: (code: string) => Promise<boolean>,
  what: string,
  attempts = UNIQUE_CODE_ATTEMPTS,
): Promise<string> {
  for (let i = 0; i < attempts; i++) {
    const code = random.digits(length);
    if (!(await isTaken(code))) return code;
  }
  throw new Error(`no free ${what} after ${attempts} attempts`);
}
