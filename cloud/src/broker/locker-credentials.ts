/**
 * The lockers' MQTT password hashes as the embedded broker checks them: a copy of the whole
 * `lockers` table's hashes in memory, so that a CONNECT is answered in the same turn of the event
 * loop, without a database query. A query per CONNECT waited behind every transaction queued on
 * the database connection (hellos, acks, presence); with thousands of lockers connecting at once
 * the CONNACKs came after the agents' 10 s connect timeout, so they retried and piled up.
 *
 * What stays secure:
 * - a password is accepted from the copy only while the copy is younger than `maxAgeMs`; an
 *   older copy is read again (one query for all lockers, shared by the CONNECTs that wait for it),
 *   so a hash changed or removed by a fleet reload, here or in another process, stops
 *   admitting the old password within `maxAgeMs`;
 * - what the copy refuses (an unknown locker, another hash) is looked up in the database at
 *   once, so a locker added or a password set since the copy was read works at once;
 * - hashes are compared in constant time (mqtt-password.ts); SHA-256 of a password costs
 *   about a microsecond, so nothing more is remembered of a password than its stored hash.
 */
import type { CloudDatabase } from '../db/database.js';
import { lockerMqttPasswordHashes, mqttPasswordHash } from '../repositories/lockers.js';
import { mqttPasswordMatches } from './mqtt-password.js';

/** How long a copy of the hashes admits a password without being read again. */
export const CREDENTIALS_MAX_AGE_MS = 10_000;

export class LockerCredentials {
  readonly #db: CloudDatabase;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  #hashes = new Map<number, string>();
  #readAt = -Infinity;
  #reading: Promise<void> | undefined;

  constructor(db: CloudDatabase, opts: { maxAgeMs?: number | undefined; now?: () => number } = {}) {
    this.#db = db;
    this.#maxAgeMs = opts.maxAgeMs ?? CREDENTIALS_MAX_AGE_MS;
    this.#now = opts.now ?? Date.now;
  }

  /** Reads every locker's hash (at start, and when the copy is too old to answer). */
  refresh(): Promise<void> {
    this.#reading ??= (async () => {
      const at = this.#now();
      try {
        this.#hashes = await lockerMqttPasswordHashes(this.#db.db);
        this.#readAt = at;
      } finally {
        this.#reading = undefined;
      }
    })();
    return this.#reading;
  }

  /**
   * The answer from the copy when it can give one: true when fresh and the password matches,
   * undefined when the database has to be asked (check()).
   */
  checkNow(lockerId: number, password: Buffer): true | undefined {
    if (this.#now() - this.#readAt > this.#maxAgeMs) return undefined;
    const hash = this.#hashes.get(lockerId);
    return hash !== undefined && mqttPasswordMatches(password, hash) ? true : undefined;
  }

  /** Whether `password` is the locker's: from the copy when fresh, else from the database. */
  async check(lockerId: number, password: Buffer): Promise<boolean> {
    if (this.checkNow(lockerId, password)) return true;
    if (this.#now() - this.#readAt > this.#maxAgeMs) {
      await this.refresh();
      if (this.checkNow(lockerId, password)) return true;
    }
    // Refused by the copy: the row may have changed since it was read.
    const hash = await mqttPasswordHash(this.#db.db, lockerId);
    if (hash === null) {
      this.#hashes.delete(lockerId);
      return false;
    }
    this.#hashes.set(lockerId, hash);
    return mqttPasswordMatches(password, hash);
  }
}
