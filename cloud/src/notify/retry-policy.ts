/**
 * When a notification that was not delivered is tried again: after `retryMs`; once it has been
 * undelivered for `failingAfterMs` since its creation it is marked failing (listed for
 * operators) and tried every `failingRetryMs`. Nothing is ever given up.
 */
import type { ClaimedNotification } from '../repositories/notifications.js';

export interface FailurePolicy {
  retryMs: number;
  failingAfterMs: number;
  failingRetryMs: number;
}

export interface FailedAttempt {
  nextAttemptAt: number;
  failingSince: number | null;
  /** This attempt marked it failing. */
  failingNow: boolean;
}

export function failedAttempt(n: ClaimedNotification, now: number, policy: FailurePolicy): FailedAttempt {
  const failingSince = n.failingSince ?? (now - n.createdAt >= policy.failingAfterMs ? now : null);
  const nextAttemptAt = now + (failingSince === null ? policy.retryMs : policy.failingRetryMs);
  return { nextAttemptAt, failingSince, failingNow: n.failingSince === null && failingSince !== null };
}
