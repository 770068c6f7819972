/**
 * A year of one busy locker (about 150 parcels a day) on a fake clock, for the retention test
 * (test/retention/year.test.ts) and the year benchmark (bench/year.scenario.ts).
 *
 * The cloud side writes each day's rows in the shapes the order path writes them (an order with
 * its parcel, three transitions, three notifications, four locker events; a route sheet; a few
 * alerts) straight into the tables, since walking 55,000 orders through HTTP would take minutes
 * and the sweep only reads those rows. The agent side uses the real store: intent in, events out,
 * cumulative acks, orders removed when finished, keypad attempts.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OrderState } from '../shared/src/enums.js';
import type { OrderIntent } from '../shared/src/protocol.js';
import { parseAgentConfig } from '../agent/src/config.js';
import { openStore } from '../agent/src/store/index.js';
import { sweepStore, type StoreRetention } from '../agent/src/store/retention.js';
import type { CloudDatabase } from '../cloud/src/db/database.js';

export const DAY_MS = 86_400_000;
export const START = Date.UTC(2030, 0, 1, 9, 0, 0);
export const PER_DAY = 150;
const LOCKER = 1;

/** One day of the locker's traffic as the cloud stores it. */
export async function seedDay(db: CloudDatabase, day: number): Promise<void> {
  const t = START + day * DAY_MS;
  const date = new Date(t).toISOString().slice(0, 10);
  const ids = Array.from({ length: PER_DAY }, (_, i) => `d${day}-o${i}`);
  const json = (v: unknown): string => JSON.stringify(v);
  await db.db.transaction().execute(async (tx) => {
    await tx
      .insertInto('orders')
      .values(
        ids.map((id) => ({
          id,
          marketplace_id: 'shop-a',
          external_id: `EXT-${id}`,
          number: null,
          locker_id: LOCKER,
          date_delivery: date,
          state: OrderState.ClientReceived,
          with_reservation: 1,
          request_hash: 'h',
          create_response: json({ id }),
          client_invoice: json({ cart: { items: [], prePaymentSum: 0 } }),
          notification: json({ emails: [], phones: [] }),
          pickup_code_hash: null,
          loaded_at: t,
          hold_until: null,
          state_changed_at: t + 3_600_000,
          created_at: t - 3_600_000,
          updated_at: t + 3_600_000,
        })),
      )
      .execute();
    await tx
      .insertInto('parcels')
      .values(ids.map((id) => ({ order_id: id, barcode: `B-${id}`, position: 0, additional_barcodes: '[]', length: 300, width: 200, height: 80, state: 'received', cell_id: 1, loaded_at: t, updated_at: t, accessible: 0 })))
      .execute();
    await tx
      .insertInto('order_transitions')
      .values(ids.flatMap((id) => [0, 1, 2].map((seq) => ({ order_id: id, seq, at: t + seq, rule: 'r', event: 'e', from_state: seq, to_state: seq + 1, parcels: '[]' }))))
      .execute();
    await tx
      .insertInto('notifications')
      .values(
        ids.flatMap((id) =>
          [0, 1, 2].map((k) => ({ uid: `${id}-n${k}`, marketplace_id: 'shop-a', order_id: id, kind: 'order-status', body: json({ id, k }), created_at: t, attempts: 1, next_attempt_at: t, last_attempt_at: t, last_status: 200, last_error: null, delivered_at: t + 1_000, failing_since: null })),
        ),
      )
      .execute();
    const lastDseq = day * PER_DAY * 4;
    await tx
      .insertInto('inbox_events')
      .values(Array.from({ length: PER_DAY * 4 }, (_, k) => ({ locker_id: LOCKER, dseq: lastDseq + k + 1, type: 'parcel.loaded', body: json({ k }), occurred_at: t, received_at: t })))
      .execute();
    await tx.insertInto('route_sheets').values({ id: `rs-${day}`, courier_id: 'c1', partner_id: 'p1', route_date: date, car_number: 'A1', external_id: `RT-${day}`, created_at: t }).execute();
    await tx.insertInto('route_sheet_lockers').values({ route_sheet_id: `rs-${day}`, locker_id: LOCKER, code_hash: `h${day}`, valid_until: t + DAY_MS }).execute();
    await tx
      .insertInto('locker_alerts')
      .values(Array.from({ length: 5 }, (_, k) => ({ locker_id: LOCKER, dseq: null, kind: 'door.alarm', severity: 'warning', cell_id: k, order_id: null, detail: '{}', occurred_at: t, received_at: t, status: k === 0 ? 'history' : 'resolved' })))
      .execute();
  });
}


export interface AgentYear {
  /** The store file after the run, bytes. */
  bytes: number;
  eventsKept: number;
  eventsWritten: number;
  lastEventDseq: number;
  keptOrderFound: boolean;
}

function intent(orderId: string, barcode: string, state: 'pending' | 'loaded', cellId: number | null, orderState: OrderIntent['state']): OrderIntent {
  return {
    orderId,
    externalId: `ext-${orderId}`,
    number: null,
    marketplaceId: 'mp-1',
    state: orderState,
    dateDelivery: '2030-01-01',
    holdUntil: null,
    pickupCodeHash: null,
    parcels: [{ barcode, additionalBarcodes: [], dimension: { length: 300, width: 200, height: 80 }, state, cellId }],
  };
}

/** `days` of traffic through a real agent store, swept daily unless `sweep` is false. */
export function runAgentYear(days: number, sweep: boolean, retention: StoreRetention = defaultAgentRetention()): AgentYear {
  const dir = mkdtempSync(join(tmpdir(), 'agent-year-'));
  const path = join(dir, 'agent.sqlite');
  let now = START;
  const store = openStore(path, { now: () => now });
  try {
    store.tx(() =>
      store.cells.setLayout([
        { id: 1, width: 400, height: 300, bus: 'main', board: 0, lock: 1, flags: [] },
        { id: 2, width: 400, height: 300, bus: 'main', board: 0, lock: 2, flags: [] },
      ]),
    );
    // An order in storage since day one stays however long the year goes on.
    store.tx(() => store.orders.upsert(intent('keep', 'KEEP-1', 'loaded', 2, 3)));
    for (let day = 0; day < days; day++) {
      now = START + day * DAY_MS;
      const date = new Date(now).toISOString().slice(0, 10);
      store.tx(() => {
        for (let i = 0; i < PER_DAY; i++) {
          const id = `d${day}-o${i}`;
          store.orders.upsert(intent(id, `B-${id}`, 'pending', null, 0));
          store.outbox.emit({ type: 'parcel.loaded', orderId: id, barcode: `B-${id}`, cellId: 1, grantId: 'g1' });
          store.outbox.emit({ type: 'code.attempt', kind: 'customer', ok: true });
          store.outbox.emit({ type: 'parcel.received', orderId: id, barcode: `B-${id}`, cellId: 1 });
          store.keypad.record('customer', now, date, true);
        }
      });
      // The cloud acknowledges all but the last event of the day and removes the finished orders.
      store.tx(() => {
        store.outbox.markSent(store.outbox.lastDseq());
        store.outbox.markAcked(store.outbox.lastDseq() - 1);
        for (let i = 0; i < PER_DAY; i++) store.orders.remove(`d${day}-o${i}`);
        store.keypad.prune(now - 2 * DAY_MS);
      });
      if (sweep) sweepStore(store, retention, now);
    }
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    const kept = store.outbox.after(0, 10_000_000);
    return {
      bytes: statSync(path).size,
      eventsKept: kept.length,
      eventsWritten: days * PER_DAY * 3,
      lastEventDseq: kept.at(-1)?.dseq ?? 0,
      keptOrderFound: store.orders.get('keep') !== null && store.outbox.lastDseq() === (kept.at(-1)?.dseq ?? -1),
    };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The agent's retention settings by default. */
export function defaultAgentRetention(): StoreRetention {
  return parseAgentConfig({ lockerId: 'L-1', buses: [{ name: 'main', path: '/dev/null', family: 'kerong-cu16', boards: [{ address: 0 }] }], dbPath: ':memory:' }).retention;
}
