/**
 * The locker's state in one SQLite file: intent from the cloud, physical facts, grants, the event
 * outbox, sync counters, keypad attempts and the journal of operations under way. All access is
 * synchronous (better-sqlite3), so a transaction never spans an await.
 */
import { lockerConfigSchema, type LockerConfig } from '../../../shared/src/protocol.js';
import type { Clock } from '../clock.js';
import { Boards } from './boards.js';
import { Cells } from './cells.js';
import { openSqlite, type Sqlite } from './database.js';
import { Grants } from './grants.js';
import { Journal } from './journal.js';
import { KeypadLog } from './keypad.js';
import { Meta } from './meta.js';
import { Orders } from './orders.js';
import { Outbox } from './outbox.js';
import { Parcels } from './parcels.js';
import { ServiceCodes } from './service-codes.js';

export { DOOR_ALARM, type Cell, type DoorState } from './cells.js';
export type { StoredOrder, ParcelMatch } from './orders.js';
export type { ParcelFact, ParcelFactState } from './parcels.js';
export type { JournalEntry, JournalStage, ParcelRef } from './journal.js';

/** Locker-wide settings from the cloud's `locker.config` (the cells live in their own table). */
export type LockerSettings = Omit<LockerConfig, 'cells'>;

export class LockerStore {
  readonly meta: Meta;
  readonly cells: Cells;
  readonly orders: Orders;
  readonly parcels: Parcels;
  readonly grants: Grants;
  readonly outbox: Outbox;
  readonly journal: Journal;
  readonly keypad: KeypadLog;
  readonly boards: Boards;
  readonly serviceCodes: ServiceCodes;

  constructor(
    readonly db: Sqlite,
    readonly clock: Clock,
  ) {
    this.meta = new Meta(db);
    this.cells = new Cells(db);
    this.orders = new Orders(db, clock);
    this.parcels = new Parcels(db);
    this.grants = new Grants(db);
    this.outbox = new Outbox(db, this.meta, clock);
    this.journal = new Journal(db);
    this.keypad = new KeypadLog(db);
    this.boards = new Boards(db);
    this.serviceCodes = new ServiceCodes(db);
  }

  /** Runs `fn` in one transaction (nested calls join the outer one). */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  // --- the locker link's view --------------------------------------------------------------------

  /** Highest cseq applied; commands commit it in the transaction that applies them. */
  appliedCseq(): number {
    return this.meta.getNumber('applied_cseq');
  }

  setAppliedCseq(cseq: number): void {
    this.meta.setNumber('applied_cseq', cseq);
  }

  ackedDseq(): number {
    return this.outbox.ackedDseq();
  }

  eventsAfter(dseq: number, limit?: number): ReturnType<Outbox['after']> {
    return this.outbox.after(dseq, limit);
  }

  markAcked(dseq: number): void {
    this.tx(() => this.outbox.markAcked(dseq));
  }

  sentDseq(): number {
    return this.outbox.sentDseq();
  }

  markSent(dseq: number): void {
    this.tx(() => this.outbox.markSent(dseq));
  }

  /** See Outbox.continueAbove: in one transaction. */
  continueAbove(cloudAcked: number): ReturnType<Outbox['continueAbove']> {
    return this.tx(() => this.outbox.continueAbove(cloudAcked));
  }

  /** Number of this (re)connection, for presence messages: strictly increasing across restarts. */
  nextConnectionCounter(): number {
    return this.tx(() => {
      const next = this.meta.getNumber('connection_counter') + 1;
      this.meta.setNumber('connection_counter', next);
      return next;
    });
  }

  /** Moves the counter up to at least `conn` (a number the broker's retained presence shows in use). */
  raiseConnectionCounter(conn: number): void {
    this.tx(() => {
      if (this.meta.getNumber('connection_counter') < conn) this.meta.setNumber('connection_counter', conn);
    });
  }

  // --- locker settings ---------------------------------------------------------------------------

  settings(): LockerSettings | null {
    const raw = this.meta.get('locker_settings');
    return raw === null ? null : lockerConfigSchema.omit({ cells: true }).parse(JSON.parse(raw));
  }

  setSettings(s: LockerSettings): void {
    this.meta.set('locker_settings', JSON.stringify(s));
  }
}

export function openStore(path: string, clock: Clock): LockerStore {
  return new LockerStore(openSqlite(path), clock);
}
