/**
 * The up stream in the database: each event of a locker is applied once, in dseq order, in the
 * transaction of its batch with its inbox row, its domain effects and the new `acked_dseq`. The transaction
 * holds the locker's row, and the inbox's primary key (locker_id, dseq) refuses a second copy,
 * so two cloud processes handed the same batch never apply an event twice.
 */
import { SpanKind } from '@opentelemetry/api';
import type { LockerEvent } from '../../../shared/src/protocol.js';
import { CLOUD_TRACER, contextFrom, inSpan, tracer } from '../../../shared/src/tracing.js';
import type { CloudDatabase } from '../db/database.js';
import { type Tx, lockerTransaction, withSavepoint } from '../db/transaction.js';
import { ackedDseq, insertInboxEvent, setAckedDseq } from '../repositories/locker-stream.js';

/**
 * The domain's reaction to one physical fact, inside the event's transaction (use only `tx`).
 * It may record commands and notifications through recordChange; it may return the other
 * lockers it recorded commands for, so they are pushed at once instead of at the next poll, and
 * what to do once the transaction has committed (tell operators watching live).
 */
export type ApplyEvent = (
  tx: Tx,
  lockerId: number,
  event: LockerEvent,
) => Promise<void | { commandsFor?: readonly number[]; afterCommit?: () => void }>;

export interface EventsResult {
  /** The locker's acked_dseq after the batch (what the ack reports). */
  ackedDseq: number;
  applied: number;
  duplicates: number;
  /** dseq of the first event that could not be applied yet (missing predecessor), if any. */
  gapAt: number | null;
  /** Other lockers the domain recorded commands for. */
  commandsFor: number[];
}

/**
 * Applies a batch in dseq order in ONE transaction holding the locker's row: each event in a
 * savepoint with its inbox row and effects, the new `acked_dseq` once at the end. One commit per
 * batch instead of per event (on PostgreSQL every transaction costs round trips and a WAL flush).
 * Stops at the first gap or failure: what follows cannot be applied before it, and the agent
 * resends from the ack. A failed event is rolled back to its savepoint, so the events before it
 * still commit, as when each had a transaction of its own.
 */
export async function applyEvents(
  cdb: CloudDatabase,
  lockerId: number,
  items: readonly LockerEvent[],
  receivedAt: number,
  applyEvent: ApplyEvent,
  onFailure: (event: LockerEvent, err: unknown) => void,
): Promise<EventsResult | null> {
  const sorted = [...items].sort((a, b) => a.dseq - b.dseq);
  // What to do once the batch has committed (the live feed); an event rolled back adds nothing.
  const afterCommit: (() => void)[] = [];
  try {
    const done = await lockerTransaction(cdb, [lockerId], async (tx) => {
      const start = await ackedDseq(tx, lockerId);
      if (start === undefined) return null;
      const result: EventsResult = { ackedDseq: start, applied: 0, duplicates: 0, gapAt: null, commandsFor: [] };
      for (const event of sorted) {
        if (event.dseq <= result.ackedDseq) {
          result.duplicates++;
          continue;
        }
        if (event.dseq !== result.ackedDseq + 1) {
          result.gapAt = event.dseq;
          break;
        }
        let effect;
        try {
          // Child of the agent span that recorded the event (door.close for a load): what the domain
          // records here (commands, notifications) carries this span's traceparent.
          const attributes = { 'locker.id': lockerId, 'locker.event.dseq': event.dseq, 'locker.event.type': event.type };
          effect = await inSpan(tracer(CLOUD_TRACER), 'locker.event.apply', { kind: SpanKind.CONSUMER, attributes }, contextFrom(event.traceparent), () =>
            withSavepoint(tx, async () => {
            if (!(await insertInboxEvent(tx, lockerId, event, receivedAt))) {
              // An inbox row above acked_dseq: never written by this code; keep the stream where it is.
              throw new Error(`inbox already holds event ${event.dseq} of locker ${lockerId} above its acked_dseq ${result.ackedDseq}`);
            }
            return applyEvent(tx, lockerId, event);
          }),
          );
        } catch (err) {
          onFailure(event, err);
          break;
        }
        result.ackedDseq = event.dseq;
        result.applied++;
        result.commandsFor.push(...(effect?.commandsFor ?? []));
        if (effect?.afterCommit) afterCommit.push(effect.afterCommit);
      }
      if (result.applied > 0) await setAckedDseq(tx, lockerId, result.ackedDseq, receivedAt);
      return result;
    });
    for (const run of afterCommit) run();
    return done;
  } catch (err) {
    // The transaction itself failed (a lost connection, a failed commit): nothing of the batch holds.
    const first = sorted[0];
    if (first) onFailure(first, err);
    const acked = await ackedDseq(cdb.db, lockerId);
    return acked === undefined ? null : { ackedDseq: acked, applied: 0, duplicates: 0, gapAt: null, commandsFor: [] };
  }
}

/**
 * The agent's `ackedDseq` from its hello. Higher than the cloud's means the cloud lost applied
 * events (restored from a backup); the agent no longer holds them, so the stream continues from
 * the agent's number and the loss is reported. Returns the lost range, if any.
 */
export async function reconcileAgentAck(
  tx: Tx,
  lockerId: number,
  agentAckedDseq: number,
): Promise<{ ackedDseq: number; lost: { from: number; to: number } | null } | null> {
  const acked = await ackedDseq(tx, lockerId);
  if (acked === undefined) return null;
  if (agentAckedDseq <= acked) return { ackedDseq: acked, lost: null };
  await setAckedDseq(tx, lockerId, agentAckedDseq);
  return { ackedDseq: agentAckedDseq, lost: { from: acked + 1, to: agentAckedDseq } };
}
