/**
 * Lockout against guessing operator keys through the console's sign-in (POST /operator/session),
 * where the key comes in the body and so escapes the per-key request limit: wrong keys are
 * counted per client address in fixed windows shared by every cloud process; at
 * SIGN_IN_GUESS_LIMIT.maxFailures the address may not sign in for `lockSeconds` (429, code 4,
 * Retry-After), a right key too. Like the courier-code lockout (code-guessing.ts).
 */
import { normalizeIP } from '@fastify/rate-limit';
import { RetryLaterError } from '../errors.js';
import { lockedUntil, lockKey } from '../repositories/guard.js';
import type { ServiceDeps } from '../services.js';
import { SIGN_IN_GUESS_LIMIT } from './limits.js';
import { WindowCounters } from './window-counters.js';

export const TOO_MANY_SIGN_INS_MESSAGE = 'Слишком много неверных ключей';

export class SignInGuard {
  readonly #counters: WindowCounters;

  constructor(private readonly deps: Pick<ServiceDeps, 'cdb' | 'clock' | 'logger'>) {
    this.#counters = new WindowCounters(deps.cdb, deps.clock);
  }

  /** Runs `attempt` (checks a key) unless the address is locked; a refused key counts against the address. */
  async guard<T>(address: string, attempt: () => Promise<T>): Promise<T> {
    const key = `guess:sign-in:${normalizeIP(address)}`;
    const now = this.deps.clock.now();
    const until = await lockedUntil(this.deps.cdb.db, [key], now);
    if (until !== undefined) throw this.#refusal(until - now);
    try {
      return await attempt();
    } catch (err) {
      const [count] = await this.#counters.hit([{ key, windowMs: SIGN_IN_GUESS_LIMIT.windowSeconds * 1000 }]);
      if (count!.hits >= SIGN_IN_GUESS_LIMIT.maxFailures) {
        const lockUntil = this.deps.clock.now() + SIGN_IN_GUESS_LIMIT.lockSeconds * 1000;
        if (await lockKey(this.deps.cdb.db, key, lockUntil, this.deps.clock.now())) {
          this.deps.logger.warn({ kind: 'operator.sign_in_guessing', failures: count!.hits }, 'operator sign-in locked for an address');
        }
      }
      throw err;
    }
  }

  #refusal(ms: number): RetryLaterError {
    const seconds = Math.max(1, Math.ceil(ms / 1000));
    return new RetryLaterError(`${TOO_MANY_SIGN_INS_MESSAGE}: повторите через ${seconds} с`, seconds, `Too many wrong keys: retry in ${seconds} s`);
  }
}
