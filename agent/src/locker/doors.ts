/**
 * Door supervision: reads every board every `pollMs` and turns what it sees into state and
 * events. A door seen closed ends the operation on its cell (a load commits here); a door seen
 * open with no operation raises `opened_unexpectedly` (unless our own unconfirmed unlock may have
 * opened it: `unconfirmed` was raised already); a door open past `leftOpenMs` raises `left_open`;
 * after any of them, closing it raises `closed`.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { CellAddress, LockHardware } from '../hw/index.js';
import { DOOR_ALARM, type Cell, type LockerStore } from '../store/index.js';
import { recordBoardState } from './boards.js';

export interface DoorSettings {
  pollMs: number;
  leftOpenMs: number;
}

export interface DoorReading {
  /** Poll number when the read started: doors confirmed open after it are not judged by it. */
  seq: number;
  doors: { address: CellAddress; closed: boolean }[];
  offline: { bus: string; board: number }[];
}

export interface DoorChange {
  cellId: number;
  closed: boolean;
}

export class DoorSupervisor extends EventEmitter<{ change: [DoorChange]; tick: [] }> {
  private seq = 0;
  private readonly confirmedOpenAt = new Map<number, number>();
  private readonly opening = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private polling: Promise<void> | undefined;
  /** Boards (`bus/board`) that answered the latest round, and when it was applied. */
  private answering: { boards: string[]; at: number } = { boards: [], at: 0 };

  constructor(
    private readonly store: LockerStore,
    private readonly hw: LockHardware,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: DoorSettings,
    /** Runs inside the transaction that records a door as closed. */
    private readonly onClosed: (cellId: number) => void,
  ) {
    super();
  }

  start(): Promise<void> {
    if (!this.running) {
      this.running = true;
      this.schedule();
    }
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.polling;
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.polling = this.poll().finally(() => {
        this.polling = undefined;
        this.schedule();
      });
    }, this.settings.pollMs);
  }

  /** An open without a journal row (an operator's) is under way: the door opening is no surprise. */
  expectOpen(cellId: number, on: boolean): void {
    if (on) this.opening.add(cellId);
    else this.opening.delete(cellId);
  }

  /** A door was just confirmed open by an operation: readings begun before that say nothing about it. */
  noteConfirmedOpen(cellId: number): void {
    this.confirmedOpenAt.set(cellId, ++this.seq);
  }

  async read(): Promise<DoorReading> {
    const seq = ++this.seq;
    const { doors, offline } = await this.hw.readAll();
    return { seq, doors, offline };
  }

  /** One round: read every board, apply, tell listeners. Errors are logged, never thrown. */
  async poll(): Promise<void> {
    try {
      this.apply(await this.read());
    } catch (err) {
      this.logger.warn({ err }, 'door poll failed');
    }
    this.emit('tick');
  }

  apply(reading: DoorReading): void {
    const seenBoards = new Set<string>();
    const changes: DoorChange[] = [];
    // One read of every cell per round, and a transaction only for a door that may change
    // something: a round reads every lock of every board (192 on four CU48s) every `pollMs`, and a
    // statement plus a transaction per door kept the event loop busy for milliseconds each round,
    // delaying the very close it had just seen (and the link's publish of it).
    const cells = new Map(this.store.cells.all().map((c) => [`${c.bus}/${c.board}/${c.lock}`, c]));
    for (const { address, closed } of reading.doors) {
      seenBoards.add(`${address.bus}/${address.board}`);
      const cell = cells.get(`${address.bus}/${address.board}/${address.lock}`);
      if (!cell) continue;
      if ((this.confirmedOpenAt.get(cell.id) ?? 0) > reading.seq) continue;
      if (closed && cell.door === 'closed') continue; // judge() would record nothing
      const change = this.store.tx(() => this.judge(cell, closed));
      if (change) changes.push(change);
    }
    for (const key of seenBoards) {
      const [bus, board] = key.split('/');
      recordBoardState(this.store, { bus: bus!, board: Number(board), online: true });
    }
    for (const b of reading.offline) recordBoardState(this.store, { ...b, online: false });
    this.answering = { boards: [...seenBoards].sort(), at: this.clock.now() };
    for (const c of changes) this.emit('change', c);
  }

  /** The boards (`bus/board`) that answered the latest round of reads, and when it was applied. */
  boardsAnswering(): { boards: string[]; at: number } {
    return this.answering;
  }

  private judge(cell: Cell, closed: boolean): DoorChange | null {
    const now = this.clock.now();
    const { store } = this;
    if (closed) {
      if (cell.door === 'closed') return null;
      const wasUnknown = cell.door === 'unknown';
      store.cells.setDoor(cell.id, 'closed', now);
      if (cell.doorAlarm !== 0) store.outbox.emit({ type: 'door.alarm', cellId: cell.id, kind: 'closed' });
      this.onClosed(cell.id);
      this.confirmedOpenAt.delete(cell.id);
      store.cells.dropIfRetiredAndEmpty(cell.id);
      // A first reading of a closed door is no change anyone waits for.
      return wasUnknown ? null : { cellId: cell.id, closed: true };
    }
    if (cell.door !== 'open') {
      // A door our own unconfirmed unlock may have opened is no surprise; its alarm stays for the close.
      const ours = cell.door === 'unknown' && (cell.doorAlarm & DOOR_ALARM.Unconfirmed) !== 0;
      const expected = ours || this.opening.has(cell.id) || store.journal.forCell(cell.id).length > 0;
      store.cells.setDoor(cell.id, 'open', now, { expected, alarm: ours ? cell.doorAlarm : expected ? 0 : DOOR_ALARM.OpenedUnexpectedly });
      if (!expected) store.outbox.emit({ type: 'door.alarm', cellId: cell.id, kind: 'opened_unexpectedly' });
      return { cellId: cell.id, closed: false };
    }
    const since = cell.doorSince ?? now;
    if ((cell.doorAlarm & DOOR_ALARM.LeftOpen) === 0 && now - since >= this.settings.leftOpenMs) {
      store.cells.addDoorAlarm(cell.id, DOOR_ALARM.LeftOpen);
      store.outbox.emit({ type: 'door.alarm', cellId: cell.id, kind: 'left_open' });
    }
    return null;
  }
}
