/**
 * Physical operations under way. A row is written before the unlock pulse and resolved in the
 * transaction that records the operation's fact (or its failure), so after a crash the locker
 * knows which doors it may have opened and for what.
 */
import type { Sqlite } from './database.js';

export interface ParcelRef {
  orderId: string;
  barcode: string;
}

/** A load's row: which parcel, which courier, and the traceparent of the load's span (tracing on). */
export type LoadDetail = ParcelRef & { grantId: string; traceparent?: string };

export type JournalEntry =
  | { id: number; kind: 'load'; cellId: number; stage: JournalStage; startedAt: number; detail: LoadDetail }
  | { id: number; kind: 'pickup'; cellId: number; stage: JournalStage; startedAt: number; detail: { parcels: ParcelRef[] } }
  | { id: number; kind: 'return'; cellId: number; stage: JournalStage; startedAt: number; detail: { parcels: ParcelRef[]; grantId: string } };

/** opening: pulse under way; open: door confirmed open; aborted: the courier gave up, nothing is recorded on close. */
export type JournalStage = 'opening' | 'open' | 'aborted';

export type NewJournalEntry = Omit<JournalEntry, 'id' | 'stage' | 'startedAt'>;

interface JournalRow {
  id: number;
  kind: JournalEntry['kind'];
  cell_id: number;
  stage: JournalStage;
  started_at: number;
  detail: string;
}

function toEntry(r: JournalRow): JournalEntry {
  const detail = JSON.parse(r.detail) as JournalEntry['detail'];
  return { id: r.id, kind: r.kind, cellId: r.cell_id, stage: r.stage, startedAt: r.started_at, detail } as JournalEntry;
}

export class Journal {
  constructor(private readonly db: Sqlite) {}

  begin(entry: NewJournalEntry, at: number): number {
    const info = this.db
      .prepare("insert into journal (kind, cell_id, stage, started_at, detail) values (?, ?, 'opening', ?, ?)")
      .run(entry.kind, entry.cellId, at, JSON.stringify(entry.detail));
    return Number(info.lastInsertRowid);
  }

  setStage(id: number, stage: JournalStage): void {
    this.db.prepare('update journal set stage = ? where id = ?').run(stage, id);
  }

  finish(id: number): void {
    this.db.prepare('delete from journal where id = ?').run(id);
  }

  get(id: number): JournalEntry | null {
    const row = this.db.prepare('select * from journal where id = ?').get(id) as JournalRow | undefined;
    return row ? toEntry(row) : null;
  }

  all(): JournalEntry[] {
    return (this.db.prepare('select * from journal order by id').all() as JournalRow[]).map(toEntry);
  }

  forCell(cellId: number): JournalEntry[] {
    return (this.db.prepare('select * from journal where cell_id = ? order by id').all(cellId) as JournalRow[]).map(toEntry);
  }

  busyCells(): Set<number> {
    return new Set((this.db.prepare('select distinct cell_id from journal').all() as { cell_id: number }[]).map((r) => r.cell_id));
  }
}
