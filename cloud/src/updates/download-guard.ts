/**
 * Lockout against guessing lockers' passwords through the artifact download, which the app-wide
 * request limit does not count: wrong or missing credentials are counted per client address in
 * fixed windows shared by every cloud process; at 20 in 15 minutes the address is refused for 15
 * minutes (429, code 4, Retry-After), right credentials too. Like the operator sign-in's.
 */
import { normalizeIP } from '@fastify/rate-limit';
import { RetryLaterError } from '../errors.js';
import { WindowCounters } from '../guard/window-counters.js';
import { lockedUntil, lockKey } from '../repositories/guard.js';
import type { ServiceDeps } from '../services.js';

const MAX_FAILURES = 20;
const WINDOW_MS = 15 * 60_000;
const LOCK_MS = 15 * 60_000;

export class DownloadGuard {
  readonly #counters: WindowCounters;

  constructor(private readonly deps: Pick<ServiceDeps, 'cdb' | 'clock' | 'logger'>) {
    this.#counters = new WindowCounters(deps.cdb, deps.clock);
  }

  /** Runs `check` (the credentials) unless the address is locked; a refusal counts against the address. */
  async guard<T>(address: string, check: () => Promise<T>): Promise<T> {
    const key = `guess:locker-download:${normalizeIP(address)}`;
    const now = this.deps.clock.now();
    const until = await lockedUntil(this.deps.cdb.db, [key], now);
    if (until !== undefined) throw refusal(until - now);
    try {
      return await check();
    } catch (err) {
      const [count] = await this.#counters.hit([{ key, windowMs: WINDOW_MS }]);
      if (count!.hits >= MAX_FAILURES && (await lockKey(this.deps.cdb.db, key, this.deps.clock.now() + LOCK_MS, this.deps.clock.now()))) {
        this.deps.logger.warn({ kind: 'locker.download_guessing', failures: count!.hits }, 'artifact downloads locked for an address');
      }
      throw err;
    }
  }
}

function refusal(ms: number): RetryLaterError {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return new RetryLaterError(`Слишком много неверных учётных данных постамата: повторите через ${seconds} с`, seconds, `too many wrong locker credentials: retry in ${seconds} s`);
}
