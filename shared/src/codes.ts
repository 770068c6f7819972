import { createHash } from 'node:crypto';
import type { CodeKind } from './enums.js';

/**
 * The locker stores and compares only hashes of keypad codes. The kind and the locker id salt the
 * hash, so a courier code and a pick-up code never collide and one locker's table says nothing
 * about another's. Short numeric codes are guessable from the hash by brute force, which is why
 * the keypad back-off, not the hash, is what protects them; the hash keeps them out of logs,
 * backups and MQTT captures.
 */
export function codeHash(kind: CodeKind, lockerId: string, code: string): string {
  return createHash('sha256').update(`${kind}:${lockerId}:${code}`).digest('hex');
}
