/**
 * Two cloud processes on one PostgreSQL schema, many concurrent reservations at a nearly full
 * locker: no cell may end up held by two orders, no parcel in two cells, and identical concurrent
 * creates must end in one order.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetInput } from '../../cloud/src/fleet/fleet-schema.js';
import { requires } from '../helpers/requirements.js';
import { type TestDatabase, openTestDatabase } from '../helpers/cloud-db.js';
import { KEYS, orderBody, testFleet } from './helpers/fleet-fixtures.js';
import { type CloudProcess, startCloudProcess } from './helpers/cloud-process.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';
const DATE = '2099-12-31'; // the processes run on the real clock
const SMALL = { length: 300, width: 200, height: 80 };

function crowdedFleet(): FleetInput {
  const fleet = testFleet();
  const cells = Array.from({ length: 12 }, (_, i) => ({ id: i + 1, width: 400, height: i < 8 ? 100 : 200, board: 0, lock: i + 1 }));
  fleet.lockers.push({
    id: 50,
    name: 'Crowded',
    depth: 500,
    location: { id: 50, city: 'Moscow', street: 's', house: '50', latitude: 55, longitude: 37, fullAddress: 'Moscow, s, 50' },
    cells,
  });
  return fleet;
}

describe.runIf(requires('postgres'))('two cloud processes on one PostgreSQL schema', () => {
  let tdb: TestDatabase;
  let dir: string;
  const clouds: CloudProcess[] = [];

  beforeAll(async () => {
    tdb = await openTestDatabase('postgres');
    dir = mkdtempSync(join(tmpdir(), 'cloud-conc-'));
    const fleetFile = join(dir, 'fleet.json');
    writeFileSync(fleetFile, JSON.stringify(crowdedFleet()));
    const env = { DATABASE_URL: tdb.location.databaseUrl!, PG_SCHEMA: tdb.location.pgSchema!, FLEET_FILE: fleetFile, DB_POOL_SIZE: '6' };
    // Both start at once: the fleet is loaded twice concurrently, under its advisory lock.
    clouds.push(...(await Promise.all([startCloudProcess(env), startCloudProcess(env)])));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clouds.map((c) => c.stop()));
    await tdb?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const create = (i: number, body: unknown) =>
    fetch(`${clouds[i % 2]!.url}${SMART}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', 'X-Service-Api-Key': KEYS.shopA },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as { reserved: { cellId: number; barcodes: string[] }[]; temporarilyRejectedItems: string[] } }));

  it('never books a cell twice or a parcel into two cells', async () => {
    // Fill the locker until three cells are left.
    for (let i = 0; i < 9; i++) {
      const res = await create(i, orderBody(`PRE-${i}`, { postamatId: 50, dateDelivery: DATE, parcels: [{ barcode: `PRE-${i}-1`, dimension: SMALL }] }));
      expect(res.body.reserved).toHaveLength(1);
    }
    const bodies = Array.from({ length: 40 }, (_, i) =>
      orderBody(`RUSH-${i}`, {
        postamatId: 50,
        dateDelivery: DATE,
        parcels: Array.from({ length: 1 + (i % 2) }, (_, p) => ({ barcode: `RUSH-${i}-${p}`, dimension: { length: 350, width: 190, height: 90 + p * 60 } })),
      }),
    );
    const answers = await Promise.all(bodies.map((b, i) => create(i, b)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const granted = answers.flatMap((a) => a.body.reserved);
    expect(granted.length).toBeGreaterThan(0);
    expect(new Set(granted.map((g) => g.cellId)).size).toBe(granted.length);
    const barcodes = granted.flatMap((g) => g.barcodes);
    expect(new Set(barcodes).size).toBe(barcodes.length);

    const rows = await tdb.db
      .selectFrom('parcels')
      .innerJoin('orders', 'orders.id', 'parcels.order_id')
      .select(['parcels.cell_id', 'parcels.order_id', 'parcels.barcode'])
      .where('orders.locker_id', '=', 50)
      .where('parcels.cell_id', 'is not', null)
      .execute();
    const ordersPerCell = new Map<number, Set<string>>();
    for (const r of rows) ordersPerCell.set(r.cell_id!, (ordersPerCell.get(r.cell_id!) ?? new Set()).add(r.order_id));
    for (const [cell, orders] of ordersPerCell) expect(orders.size, `cell ${cell}`).toBe(1);
    expect(ordersPerCell.size).toBe(12);
    expect(new Set(rows.map((r) => r.barcode)).size).toBe(rows.length);
    // What the answers granted is what the database holds.
    expect(rows.filter((r) => r.barcode.startsWith('RUSH-')).map((r) => r.barcode).sort()).toEqual([...barcodes].sort());
    // Every order reached the locker's command stream, numbered without gaps.
    const cseqs = await tdb.db.selectFrom('locker_commands').select('cseq').where('locker_id', '=', 50).orderBy('cseq').execute();
    expect(cseqs.map((c) => c.cseq)).toEqual(Array.from({ length: cseqs.length }, (_, i) => i + 1));
    expect(cseqs.length).toBe(1 + 9 + 40); // locker.config, then one order.upsert per order
  });

  it('ends identical concurrent creates in one order', async () => {
    const body = orderBody('SAME-1', { postamatId: 1, dateDelivery: DATE });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => create(i, body)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    const orders = await tdb.db.selectFrom('orders').select('id').where('external_id', '=', 'SAME-1').execute();
    expect(orders).toHaveLength(1);
  });
});
