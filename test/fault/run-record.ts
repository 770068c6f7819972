/**
 * Reading what a run left behind: the cloud's database (through the test's own connection to the
 * SQLite file), each agent's store (read-only while the agent runs, or opened after it stopped)
 * and applied-commands record, and the receiver's calls. `quiescence()` tells what is still
 * moving; `gather()` builds the checker's RunRecord once everything has stopped.
 */
import { existsSync, readFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { openStore } from '../../agent/src/store/index.js';
import { loadConfig } from '../../cloud/src/config.js';
import { cellFlags } from '../../cloud/src/repositories/lockers.js';
import { orderIntent } from '../../cloud/src/orders/intent.js';
import { OrderState } from '../../shared/src/enums.js';
import type { AppliedLine } from './child-support.js';
import type { LockerRecord, RunRecord } from './checker.js';
import type { FaultWorld, LockerRig } from './fault-world.js';
import type { History } from './history.js';

export interface AgentPosition {
  lastDseq: number;
  ackedDseq: number;
  appliedCseq: number;
}

/** The agent's stream positions, read without disturbing the running agent. */
export function agentPosition(rig: LockerRig): AgentPosition {
  const db = new BetterSqlite3(rig.dbPath, { readonly: true, fileMustExist: true });
  try {
    const meta = (key: string) => Number((db.prepare('select value from meta where key = ?').get(key) as { value: string } | undefined)?.value ?? 0);
    const seq = db.prepare("select seq from sqlite_sequence where name = 'outbox'").get() as { seq: number } | undefined;
    return { lastDseq: seq?.seq ?? 0, ackedDseq: meta('acked_dseq'), appliedCseq: meta('applied_cseq') };
  } finally {
    db.close();
  }
}

/**
 * What keeps the run from being quiescent, or null: every process up, every locker online with
 * both streams caught up at both ends, no notification undelivered, no order waiting in 6.
 */
export async function quiescence(world: FaultWorld): Promise<string | null> {
  const down = world.children().filter((c) => !c.up);
  if (down.length > 0) return `not up: ${down.map((c) => c.name).join(', ')}`;
  const db = world.tdb.db;
  for (const rig of world.lockers) {
    const row = await db.selectFrom('lockers').select(['online', 'next_cseq', 'applied_cseq', 'acked_dseq']).where('id', '=', rig.id).executeTakeFirstOrThrow();
    const agent = agentPosition(rig);
    const last = row.next_cseq - 1;
    if (row.online !== 1) return `locker ${rig.id} offline at the cloud`;
    if (row.applied_cseq !== last || agent.appliedCseq !== last) return `locker ${rig.id}: commands ${agent.appliedCseq}/${row.applied_cseq} of ${last}`;
    if (row.acked_dseq !== agent.lastDseq || agent.ackedDseq !== agent.lastDseq) return `locker ${rig.id}: events ${row.acked_dseq}/${agent.ackedDseq} of ${agent.lastDseq}`;
  }
  const pending = await db.selectFrom('notifications').select((eb) => eb.fn.countAll<number>().as('n')).where('delivered_at', 'is', null).executeTakeFirstOrThrow();
  if (Number(pending.n) > 0) return `${pending.n} notifications undelivered`;
  const waiting = await db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).where('state', '=', OrderState.ReturnInitiated).executeTakeFirstOrThrow();
  if (Number(waiting.n) > 0) return `${waiting.n} orders in Return initiated`;
  return null;
}

function appliedLines(file: string): AppliedLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AppliedLine);
}

async function lockerRecord(world: FaultWorld, rig: LockerRig): Promise<LockerRecord> {
  const db = world.tdb.db;
  const row = await db.selectFrom('lockers').selectAll().where('id', '=', rig.id).executeTakeFirstOrThrow();
  const orders = await db.selectFrom('orders').selectAll().where('locker_id', '=', rig.id).execute();
  const parcels = orders.length === 0 ? [] : await db.selectFrom('parcels').selectAll().where('order_id', 'in', orders.map((o) => o.id)).execute();
  const cells = await db.selectFrom('cells').selectAll().where('locker_id', '=', rig.id).execute();
  // The fault cloud runs with loadConfig's defaults for the reservation grace (cloud-entry.ts).
  const reservationRule = { timezone: row.timezone, graceMinutes: loadConfig({}).reservationGraceMinutes };
  const store = openStore(rig.dbPath, { now: () => Date.now() });
  try {
    return {
      lockerId: rig.id,
      cloud: {
        nextCseq: row.next_cseq,
        appliedCseq: row.applied_cseq,
        ackedDseq: row.acked_dseq,
        commands: await db.selectFrom('locker_commands').select(['cseq', 'body', 'created_at']).where('locker_id', '=', rig.id).orderBy('cseq').execute(),
        inbox: await db.selectFrom('inbox_events').select(['dseq', 'type', 'body', 'occurred_at', 'received_at']).where('locker_id', '=', rig.id).orderBy('dseq').execute(),
        alerts: (await db.selectFrom('locker_alerts').select(['id', 'dseq']).where('locker_id', '=', rig.id).where('dseq', 'is not', null).orderBy('id').execute()).map((a) => ({
          id: a.id,
          dseq: a.dseq!,
        })),
        // As the cloud builds them for this locker (with the reservation's release instant).
        intents: orders.map((o) => orderIntent(o, parcels.filter((p) => p.order_id === o.id), reservationRule)),
        parcels: parcels.map((p) => ({ order_id: p.order_id, barcode: p.barcode, state: p.state, cell_id: p.cell_id })),
        cellFlags: new Map(cells.map((c) => [c.id, cellFlags(c)])),
      },
      agent: {
        outbox: store.eventsAfter(0, 1_000_000),
        ackedDseq: store.ackedDseq(),
        appliedCseq: store.appliedCseq(),
        orders: store.orders.all(),
        parcels: store.parcels.all(),
        cells: store.cells.all(),
        applied: appliedLines(rig.appliedFile),
      },
    };
  } finally {
    store.close();
  }
}

/** Everything the checker reads; call once every process of the run has stopped. */
export async function gather(world: FaultWorld, history: History): Promise<RunRecord> {
  const db = world.tdb.db;
  const lockers: LockerRecord[] = [];
  for (const rig of world.lockers) lockers.push(await lockerRecord(world, rig));
  const orders = await db.selectFrom('orders').select(['id', 'external_id']).execute();
  return {
    lockers,
    calls: world.receiver.calls.map((c) => ({ path: c.path, uid: c.headers['x-notification-id'] as string | undefined, body: c.body })),
    notifications: await db.selectFrom('notifications').select(['id', 'uid', 'order_id', 'delivered_at']).orderBy('id').execute(),
    externalIds: new Map(orders.map((o) => [o.id, o.external_id])),
    history: new Map(
      [...history.orders.values()].map((o) => [o.externalId, { barcodes: o.barcodes, cancelled: o.cancelled, extensions: o.extensions }]),
    ),
  };
}
