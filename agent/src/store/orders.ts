/**
 * The cloud's intent: orders and their parcels as the last command or snapshot described them.
 * Kept apart from the physical facts (parcels.ts) so that replacing intent never moves a parcel.
 */
import { orderIntentSchema, type OrderIntent, type ParcelIntent } from '../../../shared/src/protocol.js';
import type { Clock } from '../clock.js';
import type { Sqlite } from './database.js';

export interface StoredOrder {
  intent: OrderIntent;
  /** The cloud no longer sends this order here, but some of its parcels are still in cells. */
  removed: boolean;
  /** traceparent of the command that set this intent (tracing on), else null or absent. */
  trace?: string | null;
}

export interface ParcelMatch {
  order: StoredOrder;
  parcel: ParcelIntent;
}

interface OrderRow {
  intent: string;
  removed: number;
  trace: string | null;
}

function toOrder(r: OrderRow): StoredOrder {
  return { intent: orderIntentSchema.parse(JSON.parse(r.intent)), removed: r.removed === 1, trace: r.trace };
}

export class Orders {
  constructor(
    private readonly db: Sqlite,
    private readonly clock: Clock,
  ) {}

  /** `trace`: traceparent of the command applying it (tracing on); a later untraced upsert keeps the earlier one. */
  upsert(intent: OrderIntent, trace?: string): void {
    this.db
      .prepare(
        `insert into orders (order_id, marketplace_id, state, pickup_code_hash, removed, intent, updated_at, trace)
         values (?, ?, ?, ?, 0, ?, ?, ?)
         on conflict (order_id) do update set marketplace_id = excluded.marketplace_id, state = excluded.state,
           pickup_code_hash = excluded.pickup_code_hash, removed = 0, intent = excluded.intent, updated_at = excluded.updated_at,
           trace = coalesce(excluded.trace, orders.trace)`,
      )
      .run(intent.orderId, intent.marketplaceId, intent.state, intent.pickupCodeHash, JSON.stringify(intent), this.clock.now(), trace ?? null);
    this.db.prepare('delete from barcodes where order_id = ?').run(intent.orderId);
    const add = this.db.prepare('insert or ignore into barcodes (code, order_id, parcel) values (?, ?, ?)');
    for (const p of intent.parcels) {
      for (const code of [p.barcode, ...p.additionalBarcodes]) add.run(code, intent.orderId, p.barcode);
    }
  }

  /**
   * Drops the order's intent. While any of its parcels is still in a cell the order is kept,
   * marked removed, so a courier can collect those parcels; returns whether it was kept.
   */
  remove(orderId: string): 'deleted' | 'kept' | 'unknown' {
    if (!this.get(orderId)) return 'unknown';
    const inCell = this.db.prepare("select 1 from parcels where order_id = ? and state = 'in_cell' limit 1").get(orderId);
    if (inCell) {
      this.db.prepare('update orders set removed = 1, pickup_code_hash = null, updated_at = ? where order_id = ?').run(this.clock.now(), orderId);
      return 'kept';
    }
    this.db.prepare('delete from barcodes where order_id = ?').run(orderId);
    this.db.prepare('delete from orders where order_id = ?').run(orderId);
    return 'deleted';
  }

  get(orderId: string): StoredOrder | null {
    const row = this.db.prepare('select intent, removed, trace from orders where order_id = ?').get(orderId) as OrderRow | undefined;
    return row ? toOrder(row) : null;
  }

  ids(): string[] {
    return (this.db.prepare('select order_id from orders').all() as { order_id: string }[]).map((r) => r.order_id);
  }

  all(): StoredOrder[] {
    return (this.db.prepare('select intent, removed, trace from orders order by order_id').all() as OrderRow[]).map(toOrder);
  }

  /**
   * Parcels of the given marketplaces answering to a barcode: by their own barcode or one of their
   * additional barcodes, both through the `barcodes` table. Barcodes are unique only within one
   * marketplace, so a courier's scan must only see the marketplaces the courier works for.
   */
  findByBarcodeOf(code: string, marketplaceIds: readonly string[]): ParcelMatch[] {
    if (marketplaceIds.length === 0) return [];
    const rows = this.db
      .prepare(
        `select b.order_id, b.parcel from barcodes b join orders o on o.order_id = b.order_id
         where b.code = ? and o.marketplace_id in (${marketplaceIds.map(() => '?').join(', ')})
         order by b.order_id, b.parcel`,
      )
      .all(code, ...marketplaceIds) as { order_id: string; parcel: string }[];
    return this.matches(rows);
  }

  /** Parcels of every marketplace answering to a barcode (a technician's inventory; a courier's scan uses findByBarcodeOf). */
  findByBarcode(code: string): ParcelMatch[] {
    const rows = this.db.prepare('select order_id, parcel from barcodes where code = ? order by order_id, parcel').all(code) as { order_id: string; parcel: string }[];
    return this.matches(rows);
  }

  private matches(rows: readonly { order_id: string; parcel: string }[]): ParcelMatch[] {
    const out: ParcelMatch[] = [];
    for (const r of rows) {
      const order = this.get(r.order_id);
      const parcel = order?.intent.parcels.find((p) => p.barcode === r.parcel);
      if (order && parcel) out.push({ order, parcel });
    }
    return out;
  }

  byPickupCodeHash(hash: string): StoredOrder[] {
    return (this.db.prepare('select intent, removed, trace from orders where pickup_code_hash = ? and removed = 0').all(hash) as OrderRow[]).map(toOrder);
  }

  /** Cells held for pending parcels: cell id -> order id. */
  reservations(): Map<number, string> {
    const out = new Map<number, string>();
    for (const { intent, removed } of this.all()) {
      if (removed) continue;
      for (const p of intent.parcels) if (p.state === 'pending' && p.cellId !== null) out.set(p.cellId, intent.orderId);
    }
    return out;
  }
}
