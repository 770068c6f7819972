/** The locker's physical facts: which parcel is in which cell, and who took it out. */
import type { Sqlite } from './database.js';

export type ParcelFactState = 'in_cell' | 'received' | 'returned';

export interface ParcelFact {
  orderId: string;
  barcode: string;
  cellId: number;
  state: ParcelFactState;
  loadedAt: number;
  /** Grant id of the courier who loaded it. */
  loadedBy: string;
  takenAt: number | null;
  /** Grant id of the collecting courier; null for the customer. */
  takenBy: string | null;
}

interface FactRow {
  order_id: string;
  barcode: string;
  cell_id: number;
  state: ParcelFactState;
  loaded_at: number;
  loaded_by: string;
  taken_at: number | null;
  taken_by: string | null;
}

function toFact(r: FactRow): ParcelFact {
  return {
    orderId: r.order_id,
    barcode: r.barcode,
    cellId: r.cell_id,
    state: r.state,
    loadedAt: r.loaded_at,
    loadedBy: r.loaded_by,
    takenAt: r.taken_at,
    takenBy: r.taken_by,
  };
}

export class Parcels {
  constructor(private readonly db: Sqlite) {}

  get(orderId: string, barcode: string): ParcelFact | null {
    const row = this.db.prepare('select * from parcels where order_id = ? and barcode = ?').get(orderId, barcode) as FactRow | undefined;
    return row ? toFact(row) : null;
  }

  all(): ParcelFact[] {
    return (this.db.prepare('select * from parcels order by loaded_at, order_id, barcode').all() as FactRow[]).map(toFact);
  }

  inCell(cellId: number): ParcelFact[] {
    return (this.db.prepare("select * from parcels where cell_id = ? and state = 'in_cell' order by barcode").all(cellId) as FactRow[]).map(toFact);
  }

  inCells(): ParcelFact[] {
    return (this.db.prepare("select * from parcels where state = 'in_cell' order by cell_id, barcode").all() as FactRow[]).map(toFact);
  }

  ofOrder(orderId: string): ParcelFact[] {
    return (this.db.prepare('select * from parcels where order_id = ? order by barcode').all(orderId) as FactRow[]).map(toFact);
  }

  /** A parcel went into a cell. Once recorded, a parcel is never loaded again. */
  recordLoaded(orderId: string, barcode: string, cellId: number, at: number, grantId: string): void {
    this.db
      .prepare("insert into parcels (order_id, barcode, cell_id, state, loaded_at, loaded_by) values (?, ?, ?, 'in_cell', ?, ?)")
      .run(orderId, barcode, cellId, at, grantId);
  }

  /** A parcel came out of its cell: to the customer, or to a courier as a return. */
  recordTaken(orderId: string, barcode: string, state: 'received' | 'returned', at: number, grantId: string | null): void {
    const info = this.db
      .prepare("update parcels set state = ?, taken_at = ?, taken_by = ? where order_id = ? and barcode = ? and state = 'in_cell'")
      .run(state, at, grantId, orderId, barcode);
    if (info.changes !== 1) throw new Error(`parcel ${barcode} of order ${orderId} is not in a cell`);
  }
}
