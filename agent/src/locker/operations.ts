/**
 * Opening cells for loads and for taking parcels out, with the journal around each pulse.
 *
 * When facts commit:
 * - a load commits when its door is seen closed again (the parcel is in only then; the courier
 *   may still change their mind while the door is open);
 * - a pick-up or a return commits as soon as the door is confirmed open: from then on the parcel
 *   is within the person's reach, and a crash before the close must not leave a parcel recorded
 *   in a cell it may have left.
 * A door that does not open (after the driver's bounded retries) flags the cell faulty
 * (`cell.flags`, reason door_jammed). A board that stays silent after the unlock went out (the
 * driver re-reads the door a bounded number of times first) leaves the door's state unknown: it
 * may have opened. No fact is recorded for it (a load is not recorded, parcels being taken stay
 * recorded in the cell), the cell is set aside for inspection (`needs_inventory`, reason
 * door_unconfirmed), the operator is alerted (`door.alarm unconfirmed`) and the outcome is
 * `unknown`. A door read open later is then ours, not opened unexpectedly; its close is reported.
 * An open that never reached the bus (hardware not started, unknown address) is `no_reply`.
 */
import type { Logger } from 'pino';
import { SpanKind, context, trace } from '@opentelemetry/api';
import type { CellFlag } from '../../../shared/src/enums.js';
import type { EventBody } from '../../../shared/src/protocol.js';
import { AGENT_TRACER, contextFrom, inSpan, traceparentOf, tracer } from '../../../shared/src/tracing.js';
import type { Clock } from '../clock.js';
import type { LockHardware, OpenResult } from '../hw/index.js';
import { DOOR_ALARM, type Cell, type LockerStore, type ParcelRef } from '../store/index.js';
import type { DoorSupervisor } from './doors.js';

export type OpenOutcome = { ok: true } | { ok: false; reason: 'jammed' | 'no_reply' | 'unknown' };

type CellFlagReason = Extract<EventBody, { type: 'cell.flags' }>['reason'];

export class CellOperations {
  constructor(
    private readonly store: LockerStore,
    private readonly hw: LockHardware,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly doors: Pick<DoorSupervisor, 'noteConfirmedOpen' | 'expectOpen'>,
  ) {}

  /**
   * Opens a cell for a courier's load, in a `parcel.load` span joining the trace of the command
   * that made the order loadable; the door's close (onDoorClosed) continues it.
   */
  async openForLoad(cell: Cell, ref: ParcelRef & { grantId: string }): Promise<OpenOutcome> {
    const { store } = this;
    const parent = contextFrom(store.orders.get(ref.orderId)?.trace);
    const attributes = { 'locker.cell.id': cell.id, 'locker.order.id': ref.orderId };
    return inSpan(tracer(AGENT_TRACER), 'parcel.load', { attributes }, parent, async (span) => {
      const traceparent = traceparentOf();
      const detail = traceparent === undefined ? ref : { ...ref, traceparent };
      const id = store.tx(() => store.journal.begin({ kind: 'load', cellId: cell.id, detail }, this.clock.now()));
      const outcome = await this.open(cell, id, () => store.journal.setStage(id, 'open'));
      span.setAttribute('locker.door.outcome', outcome.ok ? 'opened' : outcome.reason);
      return outcome;
    });
  }

  /** Opens a cell to hand its parcels out: to the customer (grantId null) or to a courier as returns. */
  async openForTaking(cell: Cell, parcels: ParcelRef[], grantId: string | null): Promise<OpenOutcome> {
    const { store } = this;
    const id = store.tx(() =>
      store.journal.begin(
        grantId === null ? { kind: 'pickup', cellId: cell.id, detail: { parcels } } : { kind: 'return', cellId: cell.id, detail: { parcels, grantId } },
        this.clock.now(),
      ),
    );
    return this.open(cell, id, () => {
      this.recordTaken(cell.id, parcels, grantId);
      store.journal.finish(id);
    });
  }

  /**
   * An operator's open (no parcel changes hands, so no journal row). `record` runs in the
   * transaction that records the outcome: opened, jammed (flagged faulty), unknown (set aside), or
   * failed (the hardware could not be asked).
   */
  async openForService(cell: Cell, record: (outcome: 'opened' | 'jammed' | 'unknown' | 'failed') => void): Promise<void> {
    const { store } = this;
    this.doors.expectOpen(cell.id, true);
    try {
      const r = await this.pulse(cell);
      if (r.ok) this.doors.noteConfirmedOpen(cell.id);
      store.tx(() => {
        if (r.ok) store.cells.markDoorExpected(cell.id, this.clock.now());
        else if (r.reason === 'jammed') this.raiseFlag(cell.id, 'faulty', 'door_jammed');
        else if (r.attempts > 0) this.setAsideUnconfirmed(cell.id);
        record(r.ok ? 'opened' : r.reason === 'jammed' ? 'jammed' : r.attempts > 0 ? 'unknown' : 'failed');
      });
    } finally {
      this.doors.expectOpen(cell.id, false);
    }
  }

  /**
   * Pulses the cell open for the journal row `id`. Confirmed open: `onOpen` runs in the transaction
   * that marks the door as opened by us. Not opened: the row ends, and a jammed door flags the cell.
   */
  private async open(cell: Cell, id: number, onOpen: () => void): Promise<OpenOutcome> {
    const { store } = this;
    const r = await this.pulse(cell);
    if (r.ok) {
      this.doors.noteConfirmedOpen(cell.id);
      store.tx(() => {
        onOpen();
        store.cells.markDoorExpected(cell.id, this.clock.now());
      });
      return { ok: true };
    }
    const unknown = r.reason === 'no_reply' && r.attempts > 0;
    store.tx(() => {
      store.journal.finish(id);
      if (r.reason === 'jammed') this.raiseFlag(cell.id, 'faulty', 'door_jammed');
      if (unknown) this.setAsideUnconfirmed(cell.id);
    });
    return { ok: false, reason: unknown ? 'unknown' : r.reason };
  }

  /** Inside a transaction: an unlock went out and the door's state could not be read. */
  private setAsideUnconfirmed(cellId: number): void {
    const { store } = this;
    this.raiseFlag(cellId, 'needs_inventory', 'door_unconfirmed');
    store.cells.setDoor(cellId, 'unknown', this.clock.now(), { expected: true, alarm: DOOR_ALARM.Unconfirmed });
    store.outbox.emit({ type: 'door.alarm', cellId, kind: 'unconfirmed' });
  }

  /** Inside a transaction: the parcels left their cell (the door is open). */
  recordTaken(cellId: number, parcels: ParcelRef[], grantId: string | null): void {
    const now = this.clock.now();
    for (const p of parcels) {
      if (this.store.parcels.get(p.orderId, p.barcode)?.state !== 'in_cell') continue;
      this.store.parcels.recordTaken(p.orderId, p.barcode, grantId === null ? 'received' : 'returned', now, grantId);
      this.store.outbox.emit(
        grantId === null
          ? { type: 'parcel.received', orderId: p.orderId, barcode: p.barcode, cellId }
          : { type: 'parcel.returned', orderId: p.orderId, barcode: p.barcode, cellId, grantId },
      );
    }
  }

  /** The courier will not leave the parcel in this open cell: nothing is recorded when it closes. */
  abortLoad(cellId: number): void {
    this.store.tx(() => {
      for (const e of this.store.journal.forCell(cellId)) if (e.kind === 'load' && e.stage === 'open') this.store.journal.setStage(e.id, 'aborted');
    });
  }

  /** Inside the door supervisor's transaction: the cell's door is closed again. */
  onDoorClosed(cellId: number): void {
    const { store } = this;
    for (const e of store.journal.forCell(cellId)) {
      if (e.kind !== 'load' || e.stage === 'opening') continue;
      if (e.stage === 'open' && !store.parcels.get(e.detail.orderId, e.detail.barcode)) {
        const { detail } = e;
        // The event carries this span's traceparent (outbox): the cloud's apply joins the load's trace.
        const span = tracer(AGENT_TRACER).startSpan('door.close', { kind: SpanKind.PRODUCER, attributes: { 'locker.cell.id': cellId } }, contextFrom(detail.traceparent));
        context.with(trace.setSpan(context.active(), span), () => {
          store.parcels.recordLoaded(detail.orderId, detail.barcode, cellId, this.clock.now(), detail.grantId);
          store.outbox.emit({ type: 'parcel.loaded', orderId: detail.orderId, barcode: detail.barcode, cellId, grantId: detail.grantId });
        });
        span.end();
      }
      store.journal.finish(e.id);
    }
  }

  /** Inside a transaction: a flag the locker found itself, reported once. */
  raiseFlag(cellId: number, flag: CellFlag, reason: CellFlagReason): void {
    const flags = this.store.cells.raiseLocalFlag(cellId, flag);
    if (flags) this.store.outbox.emit({ type: 'cell.flags', cellId, flags, reason });
  }

  private async pulse(cell: Cell): Promise<OpenResult> {
    try {
      const r = await this.hw.open({ bus: cell.bus, board: cell.board, lock: cell.lock });
      if (!r.ok) this.logger.warn({ cellId: cell.id, reason: r.reason, attempts: r.attempts }, 'door did not open');
      return r;
    } catch (err) {
      this.logger.warn({ err, cellId: cell.id }, 'open failed');
      return { ok: false, reason: 'no_reply', attempts: 0 };
    }
  }
}
