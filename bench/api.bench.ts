/**
 * The marketplace API through real HTTP: `smartorder/create` (cell allocation, the order, its
 * reservation, the locker command and the notification rows, in one transaction) and
 * `order/detail`, each against `/health` (one `select 1`) on the same server in the same run, so
 * the ratio is the domain's cost over a request's fixed cost. SQLite always; PostgreSQL as well
 * when DATABASE_URL is set. Requests go one at a time over a kept-alive connection.
 */
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { startCloud, type RunningCloud } from '../cloud/src/cloud.js';
import { loadConfig } from '../cloud/src/config.js';
import type { Engine } from '../cloud/src/db/database.js';
import { openTestDatabase, testEngines, type TestDatabase } from '../test/helpers/cloud-db.js';
import { BENCH_KEYS, benchFleet, tomorrowInMoscow, writeFleet } from './bench-fleet.js';
import type { BenchSuite, BenchTask, Comparison } from './harness.js';

/** Enough cells that the orders of a run do not fill the lockers (cells freed by nothing). */
const LOCKERS = Array.from({ length: 40 }, (_, i) => 1001 + i);
const DETAIL_ORDERS = 100;
const COURIER = 'BENCH-COURIER';

const cleanups: (() => Promise<void> | void)[] = [];
const filled = { orders: 0, rejected: 0 };

interface Api {
  call(method: 'GET' | 'PUT' | 'POST', path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: unknown }>;
}

async function startApi(engine: Engine): Promise<{ api: Api; cloud: RunningCloud; tdb: TestDatabase }> {
  const tdb = await openTestDatabase(engine);
  const fleet = writeFleet(benchFleet(LOCKERS));
  cleanups.push(() => tdb.close(), () => fleet.remove());
  // The core section alone: the HTTP API without background parts, so nothing else runs while it is measured.
  const cloud = await startCloud(loadConfig({}, { host: '127.0.0.1', port: 0, fleetFile: fleet.file, logLevel: 'silent' }), {
    database: tdb,
    logger: pino({ level: 'silent' }),
  });
  cleanups.push(() => cloud.stop());
  const dispatcher = new Agent({ connections: 1, pipelining: 0 });
  cleanups.push(() => dispatcher.close());
  const api: Api = {
    async call(method, path, body, headers = {}) {
      const res = await request(`${cloud.url}${path}`, {
        method,
        dispatcher,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? (JSON.parse(text) as unknown) : null };
    },
  };
  return { api, cloud, tdb };
}

const SHOP = { 'X-Service-Api-Key': BENCH_KEYS.shop };

function orderBody(externalId: string, lockerId: number, parcels: number, date: string): unknown {
  const list = Array.from({ length: parcels }, (_, i) => ({ barcode: `${externalId}-${i + 1}`, dimension: { length: 300, width: 200, height: 60 + 20 * i } }));
  const items = list.map((p) => ({ count: 1, barcode: p.barcode, name: 'Item', subjectType: 1, price: 1000, totalSum: 1000, taxId: 1, taxSystemId: 1 }));
  return {
    externalId,
    number: externalId,
    postamatId: lockerId,
    dateDelivery: date,
    parcels: list,
    clientInvoice: { cart: { items, prePaymentSum: 1000 * items.length } },
    notification: { emails: ['client@example.ru'], phones: ['+79161234567'] },
  };
}

async function comparisonFor(engine: Engine): Promise<Comparison> {
  const { api } = await startApi(engine);
  const date = tomorrowInMoscow();
  const route = await api.call(
    'PUT',
    '/api/v1/auth/couriers/courier-with-route',
    {
      courier: { externalId: COURIER, email: 'bench@courier.example', phone: '+79035550000' },
      route: { carNumber: 'A001AA77', date, externalId: 'BENCH-ROUTE', postamatIds: LOCKERS },
    },
    { 'Partner-Api-Key': BENCH_KEYS.partner },
  );
  if (route.status !== 200) throw new Error(`route sheet: ${route.status} ${JSON.stringify(route.body)}`);
  const barcodes: string[] = [];
  for (let i = 0; i < DETAIL_ORDERS; i++) {
    const id = `DETAIL-${engine}-${i}`;
    const a = await api.call('PUT', '/api/v4/auth/delivery/smartorder/create', orderBody(id, LOCKERS[i % LOCKERS.length]!, 1, date), SHOP);
    if (a.status !== 200) throw new Error(`order ${id}: ${a.status} ${JSON.stringify(a.body)}`);
    barcodes.push(`${id}-1`);
  }

  let next = 0;
  const create = (parcels: number): BenchTask => ({
    name: `smartorder/create, ${parcels} parcel${parcels > 1 ? 's' : ''}`,
    fn: async () => {
      const n = next++;
      const a = await api.call('PUT', '/api/v4/auth/delivery/smartorder/create', orderBody(`B-${engine}-${n}`, LOCKERS[n % LOCKERS.length]!, parcels, date), SHOP);
      if (a.status !== 200) throw new Error(`smartorder/create: ${a.status} ${JSON.stringify(a.body)}`);
      filled.orders++;
      if ((a.body as { temporarilyRejectedItems: string[] }).temporarilyRejectedItems.length > 0) filled.rejected++;
    },
  });
  let d = 0;
  return {
    name: engine === 'sqlite' ? 'SQLite' : 'PostgreSQL',
    baseline: {
      name: 'GET /health (select 1)',
      fn: async () => {
        const a = await api.call('GET', '/health');
        if (a.status !== 200) throw new Error(`health: ${a.status}`);
      },
    },
    contenders: [
      create(1),
      create(3),
      {
        name: 'order/detail',
        fn: async () => {
          const a = await api.call('POST', '/api/v4/auth/delivery/order/detail', { barcode: barcodes[d++ % barcodes.length], courierExternalId: COURIER }, SHOP);
          if (a.status !== 200) throw new Error(`order/detail: ${a.status} ${JSON.stringify(a.body)}`);
        },
      },
    ],
  };
}

async function comparisons(): Promise<Comparison[]> {
  const list: Comparison[] = [];
  for (const engine of testEngines()) list.push(await comparisonFor(engine));
  return list;
}

function notes(): string[] {
  const lines = [`${filled.orders} orders created on ${LOCKERS.length} lockers of 48 cells; each order's parcels take cells that stay reserved`];
  if (filled.rejected > 0) lines.push(`${filled.rejected} orders found no free cell (a longer BENCH_TIME_MS fills the lockers; their ratios then mean less)`);
  if (!testEngines().includes('postgres')) lines.push('PostgreSQL skipped: DATABASE_URL is not set');
  return lines;
}

async function teardown(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!();
}

export const suite: BenchSuite = { title: 'api', comparisons, notes, teardown };
