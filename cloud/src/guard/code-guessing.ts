/**
 * Lockout against guessing a secret through the API: order/detail takes a courier's access code
 * or courier id for a parcel barcode. Wrong ones (answers 203 and 210) are counted per
 * (marketplace, barcode) and per marketplace, in fixed windows shared by every cloud process
 * (window-counters.ts). When a count reaches its `maxFailures`, that path is locked for
 * `lockSeconds`: every call on it answers 429 (code 4, Retry-After), a right code too, and is not
 * checked or counted. The first lock of a path raises one operator alert (locker_alerts, kind
 * `api.code_guessing`) with ids and counts only, never a code, barcode or courier id.
 * A right code does not reset the counts: the window's end does.
 */
import { createHash } from 'node:crypto';
import { ResultCode } from '../../../shared/src/enums.js';
import type { Marketplace } from '../repositories/accounts.js';
import { DomainError, RetryLaterError } from '../errors.js';
import { recordCloudAlert } from '../locker-events/alerts.js';
import { lockedUntil, lockKey } from '../repositories/guard.js';
import { newestOrderWithBarcode } from '../repositories/occupancy.js';
import type { ServiceDeps } from '../services.js';
import { type GuessLimit, guessLimitsOf } from './limits.js';
import { WindowCounters } from './window-counters.js';

export const TOO_MANY_WRONG_CODES_MESSAGE = 'Слишком много неверных кодов';
export const CODE_GUESSING_ALERT = 'api.code_guessing';

/** Answers that mean the secret was wrong: unknown courier id, no route sheet with that code. */
const WRONG_SECRET: ReadonlySet<number> = new Set([ResultCode.LogistNotFound, ResultCode.CourierRouteNotFound]);

type Scope = 'parcel' | 'key';

interface Path {
  scope: Scope;
  key: string;
  limit: GuessLimit;
}

export class CodeGuessGuard {
  readonly #counters: WindowCounters;

  constructor(private readonly deps: ServiceDeps) {
    this.#counters = new WindowCounters(deps.cdb, deps.clock);
  }

  /** Runs `attempt` (an operation that checks a secret for `barcode`) unless its path is locked. */
  async guard<T>(marketplace: Marketplace, barcode: string, operation: string, attempt: () => Promise<T>): Promise<T> {
    const limits = guessLimitsOf(marketplace.rateLimits);
    const barcodeDigest = createHash('sha256').update(barcode, 'utf8').digest('base64url').slice(0, 22);
    const paths: Path[] = [
      { scope: 'parcel', key: `guess:parcel:${marketplace.id}:${barcodeDigest}`, limit: limits.perParcel },
      { scope: 'key', key: `guess:key:${marketplace.id}`, limit: limits.perKey },
    ];
    await this.#refuseWhileLocked(paths);
    try {
      return await attempt();
    } catch (err) {
      if (err instanceof DomainError && WRONG_SECRET.has(err.resultCode)) await this.#countFailure(marketplace, barcode, operation, paths);
      throw err;
    }
  }

  async #refuseWhileLocked(paths: readonly Path[]): Promise<void> {
    const now = this.deps.clock.now();
    const until = await lockedUntil(this.deps.cdb.db, paths.map((p) => p.key), now);
    if (until !== undefined) {
      const seconds = Math.max(1, Math.ceil((until - now) / 1000));
      this.deps.metrics.guard.refused('code_guessing');
      throw new RetryLaterError(`${TOO_MANY_WRONG_CODES_MESSAGE}: повторите через ${seconds} с`, seconds, `Too many wrong codes: retry in ${seconds} s`);
    }
  }

  async #countFailure(marketplace: Marketplace, barcode: string, operation: string, paths: readonly Path[]): Promise<void> {
    const counts = await this.#counters.hit(paths.map((p) => ({ key: p.key, windowMs: p.limit.windowSeconds * 1000 })));
    for (const [i, path] of paths.entries()) {
      const failures = counts[i]!.hits;
      if (failures < path.limit.maxFailures) continue;
      const until = await this.#lock(path);
      if (until !== undefined) await this.#alert(marketplace, barcode, operation, path, failures, until);
    }
  }

  /** Locks the path unless it is locked already (another process may have just done it); the end when this call locked it. */
  async #lock(path: Path): Promise<number | undefined> {
    const now = this.deps.clock.now();
    const until = now + path.limit.lockSeconds * 1000;
    return (await lockKey(this.deps.cdb.db, path.key, until, now)) ? until : undefined;
  }

  async #alert(marketplace: Marketplace, barcode: string, operation: string, path: Path, failures: number, until: number): Promise<void> {
    // The barcode's order names the locker the alert belongs to (the answer was 203/210, so it exists).
    const order = await newestOrderWithBarcode(this.deps.cdb.db, marketplace.id, barcode);
    if (!order) {
      this.deps.logger.warn({ kind: CODE_GUESSING_ALERT, operation, marketplaceId: marketplace.id, scope: path.scope }, 'cloud alert without a locker');
      return;
    }
    const live = await recordCloudAlert(this.deps.cdb.db, this.deps.logger, this.deps.clock.now(), order.lockerId, {
      kind: CODE_GUESSING_ALERT,
      severity: 'warning',
      dedup: `${marketplace.id}:${path.scope}`,
      orderId: order.orderId,
      detail: {
        operation,
        marketplaceId: marketplace.id,
        scope: path.scope,
        failures,
        windowSeconds: path.limit.windowSeconds,
        lockedUntil: new Date(until).toISOString(),
      },
    });
    for (const m of live) this.deps.signals.live.publish(m);
  }
}
