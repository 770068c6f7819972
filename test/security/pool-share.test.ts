/**
 * One caller cannot take the PostgreSQL pool from the others (db/fair-checkout.ts): through real
 * HTTP and a real broker, one marketplace floods with reservations that each hold a connection
 * (their Idempotency-Key claims wait on a table this test locks), and while the flood still holds
 * its share and fills its queue, another marketplace's reservation and a locker's event are done.
 * Beyond its queue the flood is refused at once (429, code 4, Retry-After), and once the lock goes
 * every request let in completes: none lost, no refused one left anything behind.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { loadCloudSettings } from '../../cloud/src/settings.js';
import { KEYS, orderBody, testFleet } from '../cloud/helpers/fleet-fixtures.js';
import { ManualClock } from '../cloud/helpers/manual-clock.js';
import { DEFAULT_NOW } from '../cloud/helpers/test-cloud.js';
import { openTestDatabase, type TestDatabase } from '../helpers/cloud-db.js';
import { eventually } from '../helpers/eventually.js';
import { codeAttempt, ScriptedLocker } from '../sync/scripted-locker.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
/** Four connections, two per caller, three waiting per caller. */
const POOL = { poolSize: 4, callerShare: 0.5, callerQueue: 3 };
const SHARE = 2;
const FLOOD = 12;

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { message?: string; resultCode?: number; reserved?: unknown[] };
}

describe.skipIf(!process.env.DATABASE_URL)('the database pool shared per caller (postgres)', () => {
  let dir: string;
  let tdb: TestDatabase;
  let cloud: RunningCloud;
  let locker: ScriptedLocker;
  let blocker: pg.Client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pool-share-'));
    const fleet = testFleet();
    fleet.lockers = fleet.lockers.map((l) => ({ ...l, mqttPasswordSha256: sha(`pw-${l.id}`) }));
    writeFileSync(join(dir, 'fleet.json'), JSON.stringify(fleet));
    tdb = await openTestDatabase('postgres', POOL);
    cloud = await startCloud(
      loadCloudSettings({}, { config: { port: 0, host: '127.0.0.1', fleetFile: join(dir, 'fleet.json'), logLevel: 'silent' }, mqtt: { brokerPort: 0 } }),
      { database: tdb, clock: new ManualClock(DEFAULT_NOW) },
    );
    locker = await ScriptedLocker.connect(cloud.brokerUrl!, '1', 'pw-1', 1);
    await locker.hello(0, 0, 1);
    await locker.barrier(1);
    blocker = new pg.Client({ connectionString: process.env.DATABASE_URL, options: `-c search_path=${tdb.location.pgSchema}` });
    await blocker.connect();
  });
  afterAll(async () => {
    await blocker?.end();
    await locker?.end();
    await cloud?.stop();
    await tdb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const reserve = async (key: string, externalId: string, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await fetch(`${cloud.url}/api/v4/auth/delivery/smartorder/create`, {
      method: 'PUT',
      headers: { 'X-Service-Api-Key': key, 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(orderBody(externalId)),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Answer['body'] };
  };
  /** Connections waiting on the test's lock of idempotency_keys. */
  const waitingOnLock = async (): Promise<number> => {
    const { rows } = await blocker.query<{ n: string }>(
      `select count(*) as n from pg_locks where not granted and relation = to_regclass('idempotency_keys')`,
    );
    return Number(rows[0]!.n);
  };

  it("a flooding marketplace holds its share; the others' reservations and lockers' events go on; beyond its queue it is refused", async () => {
    // Every flood request's first write (its Idempotency-Key claim) waits on this lock, holding its connection.
    await blocker.query('begin');
    await blocker.query('lock table idempotency_keys in access exclusive mode');

    let floodDone = 0;
    const flood = Array.from({ length: FLOOD }, (_, i) =>
      reserve(KEYS.shopA, `FLOOD-${i}`, { 'Idempotency-Key': `flood-${i}`, ...(i % 2 ? { 'Accept-Language': 'en' } : {}) }).then((a) => {
        floodDone++;
        return { i, ...a };
      }),
    );
    // The flood's share is held (both connections wait on the lock) ...
    await eventually(async () => (await waitingOnLock()) === SHARE, 'the flood holding its share of the pool');
    // ... and beyond its queue it is refused at once, while the rest waits.
    const refusedNow = await eventually(() => floodDone >= FLOOD - SHARE - POOL.callerQueue && floodDone, 'the refusals beyond the queue');
    expect(refusedNow).toBe(FLOOD - SHARE - POOL.callerQueue);

    // Another marketplace reserves, and a locker's event is applied and acknowledged, meanwhile.
    const other = await reserve(KEYS.shopB, 'OTHER-1');
    expect(other.status).toBe(200);
    expect(other.body.reserved).toHaveLength(1);
    const since = locker.mark();
    await locker.events([codeAttempt(2)]);
    await locker.waitAck(since, 2);
    // The flood is still where it was: nothing of it got through, its share still held.
    expect(floodDone).toBe(FLOOD - SHARE - POOL.callerQueue);
    expect(await waitingOnLock()).toBe(SHARE);

    await blocker.query('commit');
    const answers = await Promise.all(flood);
    const refused = answers.filter((a) => a.status === 429);
    const reserved = answers.filter((a) => a.status === 200);
    expect(refused).toHaveLength(FLOOD - SHARE - POOL.callerQueue);
    expect(reserved).toHaveLength(SHARE + POOL.callerQueue);
    for (const a of refused) {
      expect(a.retryAfter).toBe('1');
      expect(a.body.resultCode).toBe(4);
      expect(a.body.message).toBe(a.i % 2 ? 'Too many requests at once: retry in 1 s' : 'Слишком много запросов одновременно: повторите через 1 с');
    }
    // Nothing lost: every request let in reserved its order; a refused one left no order and no key behind.
    const orders = await tdb.db.selectFrom('orders').select('external_id').where('external_id', 'like', 'FLOOD-%').execute();
    expect(orders.map((o) => o.external_id).sort()).toEqual(reserved.map((a) => `FLOOD-${a.i}`).sort());
    const keys = await tdb.db.selectFrom('idempotency_keys').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(keys.n)).toBe(reserved.length);
    // A refused request, sent again, is served.
    const retried = await reserve(KEYS.shopA, `FLOOD-${refused[0]!.i}`, { 'Idempotency-Key': `flood-${refused[0]!.i}` });
    expect(retried.status).toBe(200);
  });
});
