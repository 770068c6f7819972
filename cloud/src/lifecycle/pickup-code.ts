/** The customer's pick-up code: random digits, unique among the locker's active pick-up codes. */
import { CodeKind } from '../../../shared/src/enums.js';
import { codeHash } from '../../../shared/src/codes.js';
import type { Tx } from '../db/transaction.js';
import { uniqueDigits, type RandomSource } from '../random.js';
import { pickupCodeTaken } from './repository.js';

export async function newPickupCode(tx: Tx, random: RandomSource, lockerId: number, length: number): Promise<{ code: string; hash: string }> {
  const hashOf = (code: string): string => codeHash(CodeKind.Customer, String(lockerId), code);
  const code = await uniqueDigits(random, length, (c) => pickupCodeTaken(tx, lockerId, hashOf(c)), `pick-up code at locker ${lockerId}`);
  return { code, hash: hashOf(code) };
}
