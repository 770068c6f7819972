/** The customer's pick-up code: random digits, unique among the locker's active pick-up codes. */
import { CodeKind } from '../../../shared/src/enums.js';
import { codeHash } from '../../../shared/src/codes.js';
import type { Tx } from '../db/transaction.js';
import type { RandomSource } from '../random.js';
import { pickupCodeTaken } from './repository.js';

const MAX_CODE_ATTEMPTS = 50;

export async function newPickupCode(tx: Tx, random: RandomSource, lockerId: number, length: number): Promise<{ code: string; hash: string }> {
  for (let i = 0; i < MAX_CODE_ATTEMPTS; i++) {
    const code = random.digits(length);
    const hash = codeHash(CodeKind.Customer, String(lockerId), code);
    if (!(await pickupCodeTaken(tx, lockerId, hash))) return { code, hash };
  }
  throw new Error(`no free pick-up code at locker ${lockerId} after ${MAX_CODE_ATTEMPTS} attempts`);
}
