/**
 * Delivers the notifications outbox to the marketplaces' receivers (docs/notifications.md).
 * Wakes on OutboxSignals.onNotifications, when the next retry falls due, and on a slow poll for
 * rows other processes wrote. Up to `concurrency` attempts run at once, each for a different
 * order (only an order's head is claimable). Nothing is ever deleted: a failed attempt is retried
 * after `retrySeconds`; an undelivered notification older than `failingAfterSeconds` is marked
 * failing (listed for operators, still retried every `failingRetrySeconds`). While the sandbox
 * holds a marketplace's receiver down, its attempts fail as a refused connection would, unsent.
 * Logs name the notification (id, uid, kind, order) and the outcome, never the body.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { CLOUD_TRACER, contextFrom, inSpan, tracer } from '../../../shared/src/tracing.js';
import type { Clock } from '../clock.js';
import type { CloudDatabase } from '../db/database.js';
import type { CloudMetrics } from '../metrics/cloud-metrics.js';
import type { LiveMessage } from '../operator/live-feed.js';
import type { OutboxSignals } from '../outbox/signals.js';
import { type HeldReceiver, notificationReceiver } from '../repositories/accounts.js';
import { type ClaimedNotification, claimDue, insertAttempt, markDelivered, markFailed, nextDueAt } from '../repositories/notifications.js';
import { transaction } from '../db/transaction.js';
import { Scheduler, type Job } from '../scheduler.js';
import { ReceiverClient } from './receiver-client.js';
import { alertIfReceiverFailing, resolveReceiverFailing } from './receiver-alert.js';
import { failedAttempt, type FailurePolicy } from './retry-policy.js';
import type { NotifySettings } from './settings.js';

export interface DispatcherDeps {
  cdb: CloudDatabase;
  clock: Clock;
  signals: OutboxSignals;
  logger: Logger;
  /** Counts deliveries and failed attempts (absent in tests that do not look). */
  metrics?: Pick<CloudMetrics, 'notifications'>;
  /** The process's scheduler; one of its own on real timers when absent. */
  scheduler?: Scheduler;
}

/** Shortest sleep between looking for due rows, so a clock at odds with the rows cannot spin. */
const MIN_SLEEP_MS = 100;

export class NotificationDispatcher {
  readonly name = 'notification-dispatcher';
  readonly #deps: DispatcherDeps;
  readonly #settings: NotifySettings;
  readonly #policy: FailurePolicy;
  readonly #log: Logger;
  #client: ReceiverClient | undefined;
  #unsubscribe: (() => void) | undefined;
  /** The look-up for due rows: woken on demand, by signals and by its own runIn() sleeps. */
  readonly #job: Job<void>;
  readonly #inFlight = new Set<Promise<void>>();
  /** Attempts in flight per marketplace (NOTIFY_RECEIVER_CONCURRENCY bounds each). */
  readonly #busy = new Map<string, number>();

  constructor(deps: DispatcherDeps, settings: NotifySettings) {
    this.#deps = deps;
    this.#settings = settings;
    this.#policy = {
      retryMs: settings.retrySeconds * 1000,
      failingAfterMs: settings.failingAfterSeconds * 1000,
      failingRetryMs: settings.failingRetrySeconds * 1000,
    };
    this.#log = deps.logger.child({ part: 'notifications' });
    const scheduler = deps.scheduler ?? new Scheduler({ logger: deps.logger });
    this.#job = scheduler.job('notification-dispatcher', () => this.#drainOrSleep(), { onDemand: true });
  }

  start(): Promise<void> {
    if (this.#client) return Promise.resolve();
    this.#client = new ReceiverClient({ timeoutMs: this.#settings.timeoutSeconds * 1000, allowPlainHttp: this.#settings.allowPlainHttp, clock: this.#deps.clock });
    this.#unsubscribe = this.#deps.signals.onNotifications(() => this.wake());
    this.#job.start();
    this.wake();
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    const client = this.#client;
    if (!client) return;
    this.#client = undefined;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    await this.#job.stop();
    await this.idle();
    await client.close();
  }

  /** Look for due notifications now. */
  wake(): void {
    if (!this.#client) return;
    this.#job.trigger();
  }

  /** Resolves once no look-up and no attempt is running (tests, shutdown). */
  async idle(): Promise<void> {
    do {
      await this.#job.idle();
      await Promise.all([...this.#inFlight]);
    } while (this.#job.running || this.#inFlight.size > 0);
  }

  async #drainOrSleep(): Promise<void> {
    try {
      await this.#drain();
    } catch (err) {
      this.#log.error({ err }, 'notification dispatch failed; retrying at the next poll');
      this.#sleep(this.#settings.pollSeconds * 1000);
    }
  }

  async #drain(): Promise<void> {
    const { cdb, clock } = this.#deps;
    while (this.#client) {
      const free = this.#settings.concurrency - this.#inFlight.size;
      if (free <= 0) return; // a finishing attempt wakes us
      const rows = await claimDue(cdb, clock.now(), free, this.#settings.leaseSeconds * 1000, { perMarketplace: this.#settings.receiverConcurrency, busy: this.#busy });
      if (rows.length === 0) break;
      for (const row of rows) this.#attempt(row);
    }
    if (!this.#client) return;
    const due = await nextDueAt(cdb.db);
    const poll = this.#settings.pollSeconds * 1000;
    // What is due now but not claimed waits for its marketplace's share: a finishing attempt wakes us.
    const saturated = [...this.#busy.values()].some((n) => n >= this.#settings.receiverConcurrency);
    this.#sleep(due === null || (saturated && due <= clock.now()) ? poll : Math.min(poll, Math.max(MIN_SLEEP_MS, due - clock.now())));
  }

  #sleep(ms: number): void {
    if (!this.#client) return;
    this.#job.runIn(ms);
  }

  #attempt(row: ClaimedNotification): void {
    const client = this.#client!;
    const m = row.marketplaceId;
    this.#busy.set(m, (this.#busy.get(m) ?? 0) + 1);
    const attempt = this.#deliver(client, row)
      .catch((err: unknown) => this.#log.error({ err, id: row.id }, 'recording a notification attempt failed; it is retried when its lease ends'))
      .finally(() => {
        const left = (this.#busy.get(m) ?? 1) - 1;
        if (left > 0) this.#busy.set(m, left);
        else this.#busy.delete(m);
        this.#inFlight.delete(attempt);
        this.wake();
      });
    this.#inFlight.add(attempt);
  }

  /** One attempt in a `notification.deliver` client span, the child of the span that recorded the notification. */
  async #deliver(client: ReceiverClient, row: ClaimedNotification): Promise<void> {
    const attributes = { 'notification.kind': row.kind, 'notification.attempt': row.attempts, 'marketplace.id': row.marketplaceId };
    await inSpan(tracer(CLOUD_TRACER), 'notification.deliver', { kind: SpanKind.CLIENT, attributes }, contextFrom(row.trace), async (span) => {
      const ok = await this.#deliverOnce(client, row);
      if (!ok) span.setStatus({ code: SpanStatusCode.ERROR });
    });
  }

  async #deliverOnce(client: ReceiverClient, row: ClaimedNotification): Promise<boolean> {
    const { cdb, clock } = this.#deps;
    const receiver = await notificationReceiver(cdb.db, row.marketplaceId);
    const outcome = !receiver
      ? ({ ok: false, status: null, error: 'unknown marketplace' } as const)
      : isHeld(receiver, clock.now())
        ? ({ ok: false, status: null, error: `receiver held down by the sandbox until ${new Date(receiver.heldUntil!).toISOString()}` } as const)
        : await client.send(row, receiver);
    const now = clock.now();
    const about = { id: row.id, uid: row.uid, kind: row.kind, orderId: row.orderId, marketplaceId: row.marketplaceId, attempts: row.attempts };
    const attempt = { notificationId: row.id, orderId: row.orderId, at: now };
    if (outcome.ok) {
      const [delivered, live] = await transaction(cdb, async (tx) => {
        await insertAttempt(tx, { ...attempt, status: outcome.status, error: null });
        return [await markDelivered(tx, row, now), await resolveReceiverFailing(tx, row.marketplaceId, now)] as const;
      });
      this.#publish(live);
      if (delivered) {
        this.#deps.metrics?.notifications.delivered(row.marketplaceId);
        this.#log.info(about, 'notification delivered');
      }
      return true;
    }
    const next = failedAttempt(row, now, this.#policy);
    this.#deps.metrics?.notifications.failed(row.marketplaceId);
    const error = outcome.error.slice(0, 500);
    const [recorded, live] = await transaction(cdb, async (tx) => {
      await insertAttempt(tx, { ...attempt, status: outcome.status, error });
      const failed = { marketplaceId: row.marketplaceId, orderId: row.orderId, status: outcome.status, error, at: now };
      return [
        await markFailed(tx, row, { status: outcome.status, error, ...next }),
        await alertIfReceiverFailing(tx, this.#log, this.#settings.failingAlertAttempts, failed),
      ] as const;
    });
    this.#publish(live);
    const failingNow = recorded && next.failingNow;
    const fields = { ...about, status: outcome.status ?? undefined, error: outcome.error };
    if (failingNow) this.#log.error(fields, 'notification failing: undelivered past the failing limit; still retried');
    else this.#log.warn(fields, 'notification not delivered; will retry');
    return false;
  }

  /** Tells operators watching live of an alert raised or resolved, once its transaction committed. */
  #publish(live: readonly LiveMessage[]): void {
    for (const m of live) this.#deps.signals.live.publish(m);
  }
}

/** A sandbox marketplace's receiver held as if it were down: the attempt fails without a request. */
function isHeld(receiver: HeldReceiver, now: number): boolean {
  return receiver.heldUntil !== null && receiver.heldUntil > now;
}

export function createNotificationDispatcher(deps: DispatcherDeps, settings: NotifySettings): NotificationDispatcher {
  return new NotificationDispatcher(deps, settings);
}
