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
import { ackedDseq, insertInboxEvents, lockedAckedDseq, setAckedDseq, setAckedDseqDeferred } from '../repositories/locker-stream.js';

/**
 * The events applied together, as their appliers see them: what is read once per batch may be
 * kept by this object (a WeakMap key), and rows nothing reads back may be written once for the
 * batch (`atEnd`), in one statement instead of one per event.
 */
export class EventBatch {
  readonly #atEnd: ((tx: Tx) => Promise<void>)[] = [];

  /** Runs `work` once the batch's events are applied, in their transaction. */
  atEnd(work: (tx: Tx) => Promise<void>): void {
    this.#atEnd.push(work);
  }

  async end(tx: Tx): Promise<void> {
    for (const work of this.#atEnd.splice(0)) await work(tx);
  }
}

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
  batch: EventBatch,
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

/** The inbox rows of a batch, written once at its end (the keys refuse a second copy). */
const inboxOf = new WeakMap<EventBatch, LockerEvent[]>();

/** One event's work in its batch: the inbox row and the domain's effects, in its tracing span. */
function applyOne(tx: Tx, lockerId: number, event: LockerEvent, receivedAt: number, applyEvent: ApplyEvent, batch: EventBatch) {
  let inbox = inboxOf.get(batch);
  if (!inbox) {
    const rows: LockerEvent[] = [];
    inboxOf.set(batch, (inbox = rows));
    batch.atEnd((db) => insertInboxEvents(db, lockerId, rows, receivedAt));
  }
  inbox.push(event);
  // Child of the agent span that recorded the event (door.close for a load): what the domain
  // records here (commands, notifications) carries this span's traceparent.
  const attributes = { 'locker.id': lockerId, 'locker.event.dseq': event.dseq, 'locker.event.type': event.type };
  return inSpan(tracer(CLOUD_TRACER), 'locker.event.apply', { kind: SpanKind.CONSUMER, attributes }, contextFrom(event.traceparent), () =>
    applyEvent(tx, lockerId, event, batch),
  );
}

/** Thrown out of the optimistic transaction to roll it back: an event failed, the batch is redone with savepoints. */
class EventFailed extends Error {}

/**
 * Applies a batch in dseq order in ONE transaction holding the locker's row, the new
 * `acked_dseq` once at the end: one commit per batch instead of per event. Stops at the first gap
 * or failure: what follows cannot be applied before it, and the agent resends from the ack; the
 * events before a failed one still commit, as when each had a transaction of its own.
 *
 * The batch is first tried with no savepoints, its inserts deferred (db/prepared.ts): on
 * PostgreSQL a batch of facts that need no reads then costs a few round trips in all, not a few
 * per event. Should anything fail, that transaction is rolled back and the batch applied again
 * with a savepoint per event, which keeps the events before the failed one (failures are rare:
 * a fact the domain cannot take is a bug to look into).
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
  for (const mode of ['optimistic', 'savepoints'] as const) {
    // What to do once the batch has committed (the live feed); an event rolled back adds nothing.
    const afterCommit: (() => void)[] = [];
    let failed: { event: LockerEvent; err: unknown } | undefined;
    try {
      const done = await lockerTransaction(
        cdb,
        [lockerId],
        async (tx) => {
          const start = await lockedAckedDseq(tx, lockerId);
          if (start === undefined) return null;
          const result: EventsResult = { ackedDseq: start, applied: 0, duplicates: 0, gapAt: null, commandsFor: [] };
          // Optimistic: one batch, ended with the transaction; with savepoints, one per event, ended in its savepoint.
          const whole = new EventBatch();
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
              effect = await (mode === 'optimistic'
                ? applyOne(tx, lockerId, event, receivedAt, applyEvent, whole)
                : withSavepoint(tx, async () => {
                    const own = new EventBatch();
                    const done = await applyOne(tx, lockerId, event, receivedAt, applyEvent, own);
                    await own.end(tx);
                    return done;
                  }));
            } catch (err) {
              failed = { event, err };
              if (mode === 'optimistic') throw new EventFailed();
              break;
            }
            result.ackedDseq = event.dseq;
            result.applied++;
            result.commandsFor.push(...(effect?.commandsFor ?? []));
            if (effect?.afterCommit) afterCommit.push(effect.afterCommit);
          }
          if (mode === 'optimistic') {
            try {
              await whole.end(tx);
            } catch {
              throw new EventFailed();
            }
          }
          if (result.applied > 0) await setAckedDseqDeferred(tx, lockerId, result.ackedDseq, receivedAt);
          return result;
        },
        'caller',
      );
      if (failed) onFailure(failed.event, failed.err);
      for (const run of afterCommit) run();
      return done;
    } catch (err) {
      // Optimistic: an event failed, or a deferred write did (it may surface later, at the COMMIT):
      // rolled back, the batch is redone with savepoints.
      if (mode === 'optimistic') continue;
      // The transaction itself failed (a lost connection, a failed commit): nothing of the batch holds.
      const first = sorted[0];
      if (first) onFailure(first, err);
    }
  }
  const acked = await ackedDseq(cdb.db, lockerId);
  return acked === undefined ? null : { ackedDseq: acked, applied: 0, duplicates: 0, gapAt: null, commandsFor: [] };
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
