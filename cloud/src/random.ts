/**
 * Randomness of the cloud behind one small object, so tests can make it predictable. The default
 * uses the operating system's cryptographic source (codes must not be guessable).
 */
import { randomFillSync, randomInt } from 'node:crypto';

export interface RandomSource {
  /** A new id: unique, unguessable beyond its time prefix. */
  uuid(): string;
  /** A string of `length` decimal digits, uniformly random (leading zeros allowed). */
  digits(length: number): string;
}

/** Random bytes drawn 4 KiB at a time, as node's randomUUID() does: one system call per 256 ids. */
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomSlice(): Buffer {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const slice = Buffer.from(pool.subarray(used, used + 16));
  used += 16;
  return slice;
}

/**
 * A UUID version 7 (RFC 9562): the millisecond of its making, then 74 random bits. Ids made later
 * sort later, so the tables keyed by them (orders, parcels, transitions, notifications) grow at
 * the end of their indexes instead of at random places: a random key cost an order's insert on
 * SQLite about half its time (docs/decisions.md, "Time-ordered ids").
 */
export function uuidV7(now = Date.now()): string {
  const b = randomSlice();
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const cryptoRandom: RandomSource = {
  uuid: () => uuidV7(),
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
