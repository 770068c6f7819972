/**
 * The occupancy view a cloud process keeps per locker (lockers/occupancy-cache.ts) never books a
 * cell twice, through the public API:
 * - a transaction that fails after its allocation leaves the view as it was (both engines);
 * - a fleet reload that changes a locker's cells is seen by the next reservation (both engines);
 * - two cloud processes on one PostgreSQL: a view made stale by the other process is read again
 *   and never double-books, and a race for a locker's last cell ends in exactly one reservation.
 * Whether a reservation used the view or read the locker again is read from /metrics
 * (cloud_reservation_occupancy_reads_total).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FleetInput } from '../../cloud/src/fleet/fleet-schema.js';
import { type TestDatabase, openTestDatabase, testEngines } from '../helpers/cloud-db.js';
import { requires } from '../helpers/requirements.js';
import { KEYS, orderBody, testFleet } from './helpers/fleet-fixtures.js';
import { type CloudProcess, startCloudProcess } from './helpers/cloud-process.js';
import { type TestCloud, startTestCloud } from './helpers/test-cloud.js';

const SMART = '/api/v4/auth/delivery/smartorder/create';
const LOCKER = 60;
const SMALL = { length: 300, width: 200, height: 80 };

/** Locker 60: `small` cells of 400x100 (ids 1...), then `large` of 400x400. */
function fleetWith(small: number, large = 0): FleetInput {
  const fleet = testFleet();
  const cells = [
    ...Array.from({ length: small }, (_, i) => ({ id: i + 1, width: 400, height: 100, board: 0, lock: i + 1 })),
    ...Array.from({ length: large }, (_, i) => ({ id: small + i + 1, width: 400, height: 400, board: 0, lock: small + i + 1 })),
  ];
  fleet.lockers.push({ ...fleet.lockers[0]!, id: LOCKER, name: 'View test', cells });
  return fleet;
}

const body = (externalId: string, dimension = SMALL, dateDelivery = '2030-03-05') =>
  orderBody(externalId, { postamatId: LOCKER, dateDelivery, parcels: [{ barcode: `${externalId}-1`, dimension }] });

/** The counter of where reservations found the locker, by source, from the Prometheus text. */
function occupancyReads(metrics: string): { memory: number; database: number } {
  const read = (source: string) => Number(new RegExp(`^cloud_reservation_occupancy_reads_total\\{source="${source}"\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? NaN);
  return { memory: read('memory'), database: read('database') };
}

describe.each(testEngines())('the occupancy view of one process (%s)', (engine) => {
  let tc: TestCloud;
  beforeEach(async () => {
    tc = await startTestCloud(engine, { fleet: fleetWith(4) });
  });
  afterEach(async () => {
    await tc.stop();
  });

  const reserve = async (externalId: string, dimension = SMALL) => {
    const res = await tc.call('PUT', SMART, { key: KEYS.shopA, body: body(externalId, dimension) });
    return { status: res.status, cells: ((res.body.reserved ?? []) as { cellId: number }[]).map((r) => r.cellId) };
  };
  const reads = async () => occupancyReads((await tc.call('GET', '/metrics')).body as string);

  it('is left as it was by a transaction that fails after allocating', async () => {
    expect((await reserve('V-1')).cells).toEqual([1]);
    // The order insert of BOOM fails inside its transaction, after the allocation chose cell 2.
    if (engine === 'postgres') {
      await sql`create function boom() returns trigger language plpgsql as $$ begin if new.external_id = 'BOOM' then raise exception 'boom'; end if; return new; end $$`.execute(tc.db.db);
      await sql`create trigger boom before insert on orders for each row execute function boom()`.execute(tc.db.db);
    } else {
      await sql`create trigger boom before insert on orders when new.external_id = 'BOOM' begin select raise(abort, 'boom'); end`.execute(tc.db.db);
    }
    const before = await reads();
    expect((await reserve('BOOM')).status).toBe(500);
    // Cell 2 is still free, in the view as in the database; the view is still the database's (memory).
    expect((await reserve('V-2')).cells).toEqual([2]);
    const after = await reads();
    expect(after.memory - before.memory).toBe(2);
    expect(after.database - before.database).toBe(0);
  });

  it('sees a reload of the fleet that changed the locker cells', async () => {
    expect((await reserve('F-1')).cells).toEqual([1]);
    // A parcel only a large cell holds: none yet.
    const tall = { length: 300, width: 300, height: 350 };
    expect(await reserve('F-2', tall)).toEqual({ status: 200, cells: [] });
    tc.writeFleet(fleetWith(4, 1));
    await tc.cloud.reloadFleet();
    expect((await reserve('F-3', tall)).cells).toEqual([5]);
    expect((await reserve('F-4')).cells).toEqual([2]);
  });
});

describe.runIf(requires('postgres'))('the occupancy views of two cloud processes on one PostgreSQL', () => {
  let tdb: TestDatabase;
  let dir: string;
  let fleetFile: string;
  const clouds: CloudProcess[] = [];

  beforeAll(async () => {
    tdb = await openTestDatabase('postgres');
    dir = mkdtempSync(join(tmpdir(), 'cloud-views-'));
    fleetFile = join(dir, 'fleet.json');
    writeFileSync(fleetFile, JSON.stringify(fleetWith(6)));
    const env = { DATABASE_URL: tdb.location.databaseUrl!, PG_SCHEMA: tdb.location.pgSchema!, FLEET_FILE: fleetFile, DB_POOL_SIZE: '4' };
    clouds.push(...(await Promise.all([startCloudProcess(env), startCloudProcess(env)])));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clouds.map((c) => c.stop()));
    await tdb?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const reserve = async (process: number, externalId: string) => {
    const res = await fetch(`${clouds[process]!.url}${SMART}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', 'X-Service-Api-Key': KEYS.shopA },
      body: JSON.stringify(body(externalId, SMALL, '2099-12-31')),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { reserved: { cellId: number }[] }).reserved.map((r) => r.cellId);
  };
  const reads = async (process: number) => occupancyReads(await (await fetch(`${clouds[process]!.url}/metrics`)).text());

  it('reads a view the other process made stale again, and never books its cells', async () => {
    expect(await reserve(0, 'P-1')).toEqual([1]);
    expect(await reserve(0, 'P-2')).toEqual([2]);
    // Process 1 takes cells 3 and 4; process 0's view no longer shows the database.
    expect(await reserve(1, 'P-3')).toEqual([3]);
    expect(await reserve(1, 'P-4')).toEqual([4]);
    const before = await reads(0);
    expect(await reserve(0, 'P-5')).toEqual([5]);
    const after = await reads(0);
    expect(after.database - before.database).toBe(1);
    expect(after.memory - before.memory).toBe(0);
  });

  it('lets exactly one of many requests of both processes have the last cell', async () => {
    // One cell is left (6); both processes' views are current or about to be read again.
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => reserve(i % 2, `LAST-${i}`)));
    expect(answers.flat()).toEqual([6]);
    const rows = await tdb.db
      .selectFrom('parcels')
      .innerJoin('orders', 'orders.id', 'parcels.order_id')
      .select(['parcels.cell_id'])
      .where('orders.locker_id', '=', LOCKER)
      .where('parcels.cell_id', 'is not', null)
      .execute();
    expect(rows.map((r) => r.cell_id).sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
