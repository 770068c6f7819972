/**
 * Who the database work in progress is for, so that the PostgreSQL pool is shared out fairly
 * among callers (fair-checkout.ts): an API request is its caller's (`marketplace:<id>`,
 * `partner:<id>`, `operator:<name>`, or `ip:<address>` without a known key: guard/callers.ts),
 * the locker link's work is 'locker-link', and everything else (scheduled jobs, batches shared by
 * many requests) is 'system'. Carried with the work by AsyncLocalStorage, since a checkout happens
 * deep in Kysely, far from the request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const SYSTEM_CALLER = 'system';
export const LOCKER_LINK_CALLER = 'locker-link';

export interface PoolCaller {
  /** Whose share the work takes; an API request's changes once its key is recognised. */
  caller: string;
  /**
   * The checkout may be refused when the caller's queue is full (an API request whose operation
   * has not reached the database yet; cleared at its first connection). Internal work always
   * waits its turn.
   */
  refusable: boolean;
  /** Connections this piece of work holds now (a second checkout while holding one is let through). */
  held: number;
  /** Checkouts of this piece of work waiting now: a request counts once in its caller's queue. */
  waiting: number;
}

const storage = new AsyncLocalStorage<PoolCaller>();
/**
 * Off until a shared pool is opened: carrying a context costs every promise of the process some
 * work (Node keeps it through promise hooks once a context is first entered), which SQLite, with
 * no pool to share, need not pay.
 */
let enabled = false;

/** A pool shared per caller is open in this process: carry the callers from now on. */
export function enablePoolCallers(): void {
  enabled = true;
}

/** Runs `fn` (and all the work it starts) as internal work of `caller`, with its own count of held connections. */
export function runAsPoolCaller<T>(caller: string, fn: () => T): T {
  return enabled ? storage.run({ caller, refusable: false, held: 0, waiting: 0 }, fn) : fn();
}

/** Runs `fn` (an API request's processing) with `scope` as its caller. */
export function runInPoolScope<T>(scope: PoolCaller, fn: () => T): T {
  return enabled ? storage.run(scope, fn) : fn();
}

/** The work in progress's caller; outside any, internal work of 'system'. */
export function currentPoolCaller(): PoolCaller | undefined {
  return storage.getStore();
}
