/**
 * API keys and marketplaces as read in the last few seconds, per database: every marketplace call
 * authenticates, and reading the key and its owner cost two statements per request for rows that
 * change only when the fleet file is loaded. A reload in this process forgets them at once
 * (cloud.ts); another process on the same database sees the change within REMEMBER_MS
 * (docs/decisions.md, "Keys remembered for seconds"). Unknown keys are never remembered: each is
 * looked up again, so a key added by a reload works at once.
 */
import type { CloudDatabase } from '../db/database.js';
import { type ApiKey, findApiKey, findMarketplace, type Marketplace } from './accounts.js';

export const REMEMBER_MS = 5_000;
const REMEMBER_AT_MOST = 10_000;

class Remembered<T> {
  readonly #entries = new Map<string, { value: T; until: number }>();

  async get(key: string, read: () => Promise<T | undefined>): Promise<T | undefined> {
    const now = performance.now();
    const known = this.#entries.get(key);
    if (known && known.until > now) return known.value;
    const value = await read();
    if (value === undefined) {
      this.#entries.delete(key);
      return undefined;
    }
    if (this.#entries.size >= REMEMBER_AT_MOST) this.#entries.clear();
    this.#entries.set(key, { value, until: now + REMEMBER_MS });
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }
}

export class KnownAccounts {
  readonly #keys = new Remembered<ApiKey>();
  readonly #marketplaces = new Remembered<Marketplace>();

  constructor(private readonly cdb: CloudDatabase) {}

  apiKey(keyHash: string): Promise<ApiKey | undefined> {
    return this.#keys.get(keyHash, () => findApiKey(this.cdb.reads, keyHash));
  }

  marketplace(id: string): Promise<Marketplace | undefined> {
    return this.#marketplaces.get(id, () => findMarketplace(this.cdb.reads, id));
  }

  /** After a fleet reload: the next request reads again. */
  forget(): void {
    this.#keys.clear();
    this.#marketplaces.clear();
  }
}

const known = new WeakMap<CloudDatabase, KnownAccounts>();

export function knownAccountsOf(cdb: CloudDatabase): KnownAccounts {
  let accounts = known.get(cdb);
  if (!accounts) known.set(cdb, (accounts = new KnownAccounts(cdb)));
  return accounts;
}
