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
