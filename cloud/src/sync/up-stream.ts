/**
 * The up stream in the database: each event of a locker is applied once, in dseq order, in one
 * transaction with its inbox row, its domain effects and the new `acked_dseq`. The transaction
 * holds the locker's row, and the inbox's primary key (locker_id, dseq) refuses a second copy,
 * so two cloud processes handed the same batch never apply an event twice.
 */
import { SpanKind } from '@opentelemetry/api';
import type { LockerEvent } from '../../../shared/src/protocol.js';
import { CLOUD_TRACER, contextFrom, inSpan, tracer } from '../../../shared/src/tracing.js';
import type { CloudDatabase } from '../db/database.js';
import { type Tx, lockerTransaction } from '../db/transaction.js';
import { ackedDseq, insertInboxEvent, setAckedDseq } from '../repositories/locker-stream.js';

/**
 * The domain's reaction to one physical fact, inside the event's transaction (use only `tx`).
 * It may record commands and notifications through recordChange; it may return the other
 * lockers it recorded commands for, so they are pushed at once instead of at the next poll.
 */
export type ApplyEvent = (tx: Tx, lockerId: number, event: LockerEvent) => Promise<void | { commandsFor?: readonly number[] }>;

export type EventOutcome = 'applied' | 'duplicate' | 'gap' | 'unknown-locker';

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

async function applyOne(
  cdb: CloudDatabase,
  lockerId: number,
  event: LockerEvent,
  receivedAt: number,
  applyEvent: ApplyEvent,
): Promise<{ outcome: EventOutcome; ackedDseq: number; commandsFor: readonly number[] }> {
  // Child of the agent span that recorded the event (door.close for a load): what the domain
  // records here (commands, notifications) carries this span's traceparent.
  const attributes = { 'locker.id': lockerId, 'locker.event.dseq': event.dseq, 'locker.event.type': event.type };
  return inSpan(tracer(CLOUD_TRACER), 'locker.event.apply', { kind: SpanKind.CONSUMER, attributes }, contextFrom(event.traceparent), async (span) => {
    const one = await applyInTransaction(cdb, lockerId, event, receivedAt, applyEvent);
    span.setAttribute('locker.event.outcome', one.outcome);
    return one;
  });
}

async function applyInTransaction(
  cdb: CloudDatabase,
  lockerId: number,
  event: LockerEvent,
  receivedAt: number,
  applyEvent: ApplyEvent,
): Promise<{ outcome: EventOutcome; ackedDseq: number; commandsFor: readonly number[] }> {
  return lockerTransaction(cdb, [lockerId], async (tx) => {
    const acked = await ackedDseq(tx, lockerId);
    if (acked === undefined) return { outcome: 'unknown-locker', ackedDseq: 0, commandsFor: [] };
    if (event.dseq <= acked) return { outcome: 'duplicate', ackedDseq: acked, commandsFor: [] };
    if (event.dseq !== acked + 1) return { outcome: 'gap', ackedDseq: acked, commandsFor: [] };
    if (!(await insertInboxEvent(tx, lockerId, event, receivedAt))) {
      // An inbox row above acked_dseq: never written by this code; keep the stream where it is.
      throw new Error(`inbox already holds event ${event.dseq} of locker ${lockerId} above its acked_dseq ${acked}`);
    }
    const effect = await applyEvent(tx, lockerId, event);
    await setAckedDseq(tx, lockerId, event.dseq, receivedAt);
    return { outcome: 'applied', ackedDseq: event.dseq, commandsFor: effect?.commandsFor ?? [] };
  });
}

/**
 * Applies a batch in dseq order, one transaction per event. Stops at the first gap or failure:
 * what follows cannot be applied before it, and the agent resends from the ack.
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
  const result: EventsResult = { ackedDseq: 0, applied: 0, duplicates: 0, gapAt: null, commandsFor: [] };
  let known = false;
  for (const event of sorted) {
    let one;
    try {
      one = await applyOne(cdb, lockerId, event, receivedAt, applyEvent);
    } catch (err) {
      onFailure(event, err);
      break;
    }
    if (one.outcome === 'unknown-locker') return null;
    known = true;
    result.ackedDseq = one.ackedDseq;
    if (one.outcome === 'applied') {
      result.applied++;
      result.commandsFor.push(...one.commandsFor);
    } else if (one.outcome === 'duplicate') {
      result.duplicates++;
    } else {
      result.gapAt = event.dseq;
      break;
    }
  }
  if (!known) result.ackedDseq = (await ackedDseq(cdb.db, lockerId)) ?? 0;
  return result;
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
