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

interface StreamRow {
  next_cseq: number;
  applied_cseq: number;
  sent_cseq: number;
  sent_at: number | null;
}

async function readStream(tx: Tx, lockerId: number): Promise<StreamRow | undefined> {
  return tx
    .selectFrom('lockers')
    .select(['next_cseq', 'applied_cseq', 'sent_cseq', 'sent_at'])
    .where('id', '=', lockerId)
    .executeTakeFirst();
}

async function readCommands(tx: Tx, lockerId: number, after: number, upTo: number): Promise<Command[]> {
  const rows = await tx
    .selectFrom('locker_commands')
    .select(['cseq', 'body', 'created_at'])
    .where('locker_id', '=', lockerId)
    .where('cseq', '>', after)
    .where('cseq', '<=', upTo)
    .orderBy('cseq')
    .execute();
  return rows.map((r) => ({ ...(JSON.parse(r.body) as object), cseq: r.cseq, at: r.created_at }) as Command);
}

async function logReaches(tx: Tx, lockerId: number, cseq: number): Promise<boolean> {
  const row = await tx
    .selectFrom('locker_commands')
    .select('cseq')
    .where('locker_id', '=', lockerId)
    .where('cseq', '=', cseq)
    .executeTakeFirst();
  return row !== undefined;
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
  const row = await readStream(tx, lockerId);
  if (!row) return null;
  const last = row.next_cseq - 1;
  const snapshotAt = async (cseq: number, reason: SnapshotReason): Promise<DownPlan> => {
    await tx.updateTable('lockers').set({ sent_cseq: cseq, sent_at: now }).where('id', '=', lockerId).execute();
    return { kind: 'snapshot', snapshot: await buildSnapshot(tx, lockerId, cseq), reason };
  };

  if (appliedCseq > last) {
    await tx
      .updateTable('lockers')
      .set({ next_cseq: appliedCseq + 1, applied_cseq: appliedCseq })
      .where('id', '=', lockerId)
      .execute();
    return { plan: await snapshotAt(appliedCseq, 'agent-ahead'), advancedTo: appliedCseq };
  }
  if (appliedCseq < row.applied_cseq) {
    return { plan: await snapshotAt(last, 'agent-behind-its-ack'), advancedTo: null };
  }
  const advancedTo = appliedCseq > row.applied_cseq ? appliedCseq : null;
  if (advancedTo !== null) await tx.updateTable('lockers').set({ applied_cseq: appliedCseq }).where('id', '=', lockerId).execute();
  if (appliedCseq === last) {
    await tx.updateTable('lockers').set({ sent_cseq: appliedCseq, sent_at: now }).where('id', '=', lockerId).execute();
    return { plan: { kind: 'none' }, advancedTo };
  }
  if (!(await logReaches(tx, lockerId, appliedCseq + 1))) return { plan: await snapshotAt(last, 'log-trimmed'), advancedTo };
  const upTo = Math.min(last, appliedCseq + limits.windowSize);
  await tx.updateTable('lockers').set({ sent_cseq: upTo, sent_at: now }).where('id', '=', lockerId).execute();
  return { plan: { kind: 'commands', commands: await readCommands(tx, lockerId, appliedCseq, upTo) }, advancedTo };
}

/**
 * Records the agent's cumulative ack. Returns the new applied_cseq, or null when it moved
 * nothing (a stale or duplicate ack) or named a cseq the cloud never wrote.
 */
export async function recordCommandAck(tx: Tx, lockerId: number, appliedCseq: number, now: number): Promise<number | null> {
  const row = await readStream(tx, lockerId);
  if (!row || appliedCseq <= row.applied_cseq || appliedCseq > row.next_cseq - 1) return null;
  await tx
    .updateTable('lockers')
    .set({ applied_cseq: appliedCseq, sent_cseq: Math.max(row.sent_cseq, appliedCseq), sent_at: now })
    .where('id', '=', lockerId)
    .execute();
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
  const row = await readStream(tx, lockerId);
  if (!row) return { kind: 'none' };
  const last = row.next_cseq - 1;
  if (last <= row.applied_cseq) return { kind: 'none' };
  const stalled = row.sent_cseq > row.applied_cseq && (row.sent_at === null || now - row.sent_at >= limits.resendAfterMs);
  const fresh = row.sent_cseq <= row.applied_cseq || stalled;
  const from = fresh ? row.applied_cseq : row.sent_cseq;
  const upTo = Math.min(last, row.applied_cseq + limits.windowSize);
  if (from >= upTo) return { kind: 'none' };
  const sentAt = fresh ? now : row.sent_at;
  if (!(await logReaches(tx, lockerId, from + 1))) {
    await tx.updateTable('lockers').set({ sent_cseq: last, sent_at: now }).where('id', '=', lockerId).execute();
    return { kind: 'snapshot', snapshot: await buildSnapshot(tx, lockerId, last), reason: 'log-trimmed' };
  }
  await tx.updateTable('lockers').set({ sent_cseq: upTo, sent_at: sentAt }).where('id', '=', lockerId).execute();
  return { kind: 'commands', commands: await readCommands(tx, lockerId, from, upTo) };
}

/**
 * Deletes commands the agent has applied and that are older than the retention. An agent that
 * later reports an older position (restored from a backup) then gets a snapshot instead.
 */
export async function trimCommandLog(tx: Tx, olderThan: number): Promise<number> {
  const result = await tx
    .deleteFrom('locker_commands')
    .where('created_at', '<', olderThan)
    .where((eb) =>
      eb('cseq', '<=', eb.selectFrom('lockers').select('lockers.applied_cseq').whereRef('lockers.id', '=', 'locker_commands.locker_id')),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Lockers the poll should look at: online, hello said, with commands the agent has not acked. */
export async function lockersWithPendingCommands(tx: Tx): Promise<number[]> {
  const rows = await tx
    .selectFrom('lockers')
    .select('id')
    .where('online', '=', 1)
    .whereRef('hello_conn', '=', 'presence_conn')
    .where((eb) => eb('applied_cseq', '<', eb('next_cseq', '-', 1)))
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}
