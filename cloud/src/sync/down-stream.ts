/**
 * The down stream in the database: which commands (or which snapshot) a locker needs, and the
 * send cursor that lets several cloud processes share the work without sending a range twice.
 *
 * Per locker: `applied_cseq` is the agent's cumulative ack (never decreases); `sent_cseq` is the
 * highest cseq published since the agent's last hello; `sent_at` is when the agent last made
 * progress (a fresh send from `applied_cseq`, or an ack that advanced it). When nothing moved
 * for `resendAfterMs`, everything after `applied_cseq` goes out again.
 */
import type { Command, Snapshot } from '../../../shared/src/protocol.js';
import type { Tx } from '../db/transaction.js';
import {
  commandLogged,
  commandsBetween,
  continueStreamAfter,
  downCursor,
  setApplied,
  setSent,
} from '../repositories/locker-stream.js';

export type DownPlan =
  | { kind: 'none' }
  | { kind: 'commands'; commands: Command[] }
  | { kind: 'snapshot'; snapshot: Snapshot; reason: SnapshotReason };

export type SnapshotReason = 'log-trimmed' | 'agent-ahead' | 'agent-behind-its-ack';

export type SnapshotBuilder = (tx: Tx, lockerId: number, cseq: number) => Promise<Snapshot>;

export interface DownLimits {
  /** Most commands published and not yet acked per locker. */
  windowSize: number;
  resendAfterMs: number;
}

export interface HelloDown {
  plan: DownPlan;
  /** The new applied_cseq when the hello advanced it. */
  advancedTo: number | null;
}

/**
 * Answers a hello's `appliedCseq`: replay what follows it (first window), or a snapshot when the
 * log no longer reaches back, when the agent is ahead of the log (cloud restored from a backup:
 * the stream then continues above the agent's number), or when the agent reports less than it
 * already acknowledged (it lost its state). Resets the send cursor to what is sent now.
 */
export async function planHelloReplay(
  tx: Tx,
  lockerId: number,
  appliedCseq: number,
  now: number,
  limits: DownLimits,
  buildSnapshot: SnapshotBuilder,
): Promise<HelloDown | null> {
  const row = await downCursor(tx, lockerId);
  if (!row) return null;
  const last = row.nextCseq - 1;
  const snapshotAt = async (cseq: number, reason: SnapshotReason): Promise<DownPlan> => {
    await setSent(tx, lockerId, cseq, now);
    return { kind: 'snapshot', snapshot: await buildSnapshot(tx, lockerId, cseq), reason };
  };

  if (appliedCseq > last) {
    await continueStreamAfter(tx, lockerId, appliedCseq);
    return { plan: await snapshotAt(appliedCseq, 'agent-ahead'), advancedTo: appliedCseq };
  }
  if (appliedCseq < row.appliedCseq) {
    return { plan: await snapshotAt(last, 'agent-behind-its-ack'), advancedTo: null };
  }
  const advancedTo = appliedCseq > row.appliedCseq ? appliedCseq : null;
  if (advancedTo !== null) await setApplied(tx, lockerId, appliedCseq);
  if (appliedCseq === last) {
    await setSent(tx, lockerId, appliedCseq, now);
    return { plan: { kind: 'none' }, advancedTo };
  }
  if (!(await commandLogged(tx, lockerId, appliedCseq + 1))) return { plan: await snapshotAt(last, 'log-trimmed'), advancedTo };
  const upTo = Math.min(last, appliedCseq + limits.windowSize);
  await setSent(tx, lockerId, upTo, now);
  return { plan: { kind: 'commands', commands: await commandsBetween(tx, lockerId, appliedCseq, upTo) }, advancedTo };
}

/**
 * Records the agent's cumulative ack. Returns the new applied_cseq, or null when it moved
 * nothing (a stale or duplicate ack) or named a cseq the cloud never wrote.
 */
export async function recordCommandAck(tx: Tx, lockerId: number, appliedCseq: number, now: number): Promise<number | null> {
  const row = await downCursor(tx, lockerId);
  if (!row || appliedCseq <= row.appliedCseq || appliedCseq > row.nextCseq - 1) return null;
  await setApplied(tx, lockerId, appliedCseq, { sentCseq: Math.max(row.sentCseq, appliedCseq), sentAt: now });
  return appliedCseq;
}

/**
 * What an online locker should receive now: commands not yet sent since its hello (within the
 * window), or, after `resendAfterMs` without progress, everything after its ack again.
 */
export async function planPush(
  tx: Tx,
  lockerId: number,
  now: number,
  limits: DownLimits,
  buildSnapshot: SnapshotBuilder,
): Promise<DownPlan> {
  const row = await downCursor(tx, lockerId);
  if (!row) return { kind: 'none' };
  const last = row.nextCseq - 1;
  if (last <= row.appliedCseq) return { kind: 'none' };
  const stalled = row.sentCseq > row.appliedCseq && (row.sentAt === null || now - row.sentAt >= limits.resendAfterMs);
  const fresh = row.sentCseq <= row.appliedCseq || stalled;
  const from = fresh ? row.appliedCseq : row.sentCseq;
  const upTo = Math.min(last, row.appliedCseq + limits.windowSize);
  if (from >= upTo) return { kind: 'none' };
  const sentAt = fresh ? now : row.sentAt;
  if (!(await commandLogged(tx, lockerId, from + 1))) {
    await setSent(tx, lockerId, last, now);
    return { kind: 'snapshot', snapshot: await buildSnapshot(tx, lockerId, last), reason: 'log-trimmed' };
  }
  await setSent(tx, lockerId, upTo, sentAt);
  return { kind: 'commands', commands: await commandsBetween(tx, lockerId, from, upTo) };
}
