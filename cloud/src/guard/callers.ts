/**
 * Who a request counts against for the request limit: the owner of a known API key of the kind
 * the path's route group requires (marketplace under /api/v4, partner under /api/v1, operator
 * under /operator: http/plugins/authentication.ts), else the client address. The owner, not the key, is counted, so rotated keys share one budget. This
 * only picks the budget; authentication stays with http/auth.ts, which refuses the same request.
 *
 * Known keys are remembered for a few seconds (a fleet reload reaches the limits within that
 * time), so a request with a valid key costs no lookup; an unknown key is looked up every time.
 * Requests with the same key at once share one lookup: when a busy key's memory runs out, its
 * requests in flight would otherwise each take a database connection (as their address's, for
 * the pool's shares: the owner is not known yet) for the same row.
 */
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { CloudDatabase } from '../db/database.js';
import { API_KEY_HEADERS, hashApiKey, type KeyOwnerKind } from '../http/auth.js';
import { keyOwnerLimits } from '../repositories/accounts.js';
import { ANONYMOUS_REQUEST_LIMIT, DEFAULT_REQUEST_LIMIT, type RequestLimit, requestLimitOf } from './limits.js';

export interface Caller {
  /** Counter key: `marketplace:<id>`, `partner:<id>`, `operator:<name>` or `ip:<address>`. */
  bucket: string;
  limit: RequestLimit;
}

const REMEMBER_MS = 5_000;
const REMEMBER_AT_MOST = 10_000;

export class CallerResolver {
  readonly #known = new Map<string, { caller: Caller; until: number }>();
  readonly #looking = new Map<string, Promise<Caller | undefined>>();

  constructor(
    private readonly cdb: CloudDatabase,
    private readonly clock: Clock,
  ) {}

  /** `kind`: the key kind the path's route group requires, if any. */
  async callerOf(req: FastifyRequest, kind: KeyOwnerKind | undefined): Promise<Caller> {
    // IPv6 clients are counted per /64, the block one subscriber usually has.
    const anonymous: Caller = { bucket: `ip:${normalizeIP(req.ip)}`, limit: ANONYMOUS_REQUEST_LIMIT };
    if (!kind) return anonymous;
    const header = req.headers[API_KEY_HEADERS[kind]];
    const key = Array.isArray(header) ? header[0] : header;
    if (!key || key.length > 512) return anonymous;
    return (await this.#owner(kind, hashApiKey(key))) ?? anonymous;
  }

  async #owner(kind: KeyOwnerKind, hash: string): Promise<Caller | undefined> {
    const now = this.clock.now();
    const cacheKey = `${kind}:${hash}`;
    const known = this.#known.get(cacheKey);
    if (known && known.until > now && now >= known.until - REMEMBER_MS) return known.caller;
    let looking = this.#looking.get(cacheKey);
    if (!looking) {
      looking = this.#lookUp(kind, hash, cacheKey, now).finally(() => this.#looking.delete(cacheKey));
      this.#looking.set(cacheKey, looking);
    }
    return looking;
  }

  async #lookUp(kind: KeyOwnerKind, hash: string, cacheKey: string, now: number): Promise<Caller | undefined> {
    const owner = await keyOwnerLimits(this.cdb.db, hash);
    if (!owner || owner.ownerKind !== kind) return undefined;
    const limit = kind === 'operator' ? DEFAULT_REQUEST_LIMIT : requestLimitOf(kind, owner.rateLimits);
    const caller: Caller = { bucket: `${kind}:${owner.ownerId}`, limit };
    if (this.#known.size >= REMEMBER_AT_MOST) this.#known.clear();
    this.#known.set(cacheKey, { caller, until: now + REMEMBER_MS });
    return caller;
  }
}
