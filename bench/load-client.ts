/**
 * The load generator of the throughput scenario, run as a process of its own so that the client
 * does not share the server's event loop: a fixed number of requests in flight (one per kept-alive
 * connection, spread over the target URLs) for a fixed time, each worker sending its next request
 * when the last one is answered. Prints one JSON line: requests, req/s, p50/p99 in ms, statuses.
 *
 * Usage: tsx bench/load-client.ts '<LoadSpec as JSON>' (the scenario imports only its types).
 */
import { Pool } from 'undici';
import { BENCH_KEYS } from './bench-fleet.js';

export interface LoadSpec {
  /** Base URLs (http://127.0.0.1:port); workers are spread over them round-robin. */
  urls: string[];
  request: { kind: 'get'; path: string } | { kind: 'smartorder/create'; lockers: number[]; date: string; prefix: string };
  inFlight: number;
  durationMs: number;
  /** The marketplace key smartorder/create is sent with; the bench shop's by default. */
  key?: string;
  /** Stop after this many requests instead (a warm-up that touches every locker once). */
  requests?: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers by status code; a 200 of smartorder/create that reserved nothing counts as "rejected". */
  statuses: Record<string, number>;
}

const CREATE_PATH = '/api/v4/auth/delivery/smartorder/create';

function orderBody(externalId: string, lockerId: number, date: string): string {
  return JSON.stringify({
    externalId,
    number: externalId,
    postamatId: lockerId,
    dateDelivery: date,
    parcels: [{ barcode: `${externalId}-1`, dimension: { length: 300, width: 200, height: 80 } }],
    clientInvoice: { cart: { items: [{ count: 1, barcode: `${externalId}-1`, name: 'Item', subjectType: 1, price: 1000, totalSum: 1000, taxId: 1, taxSystemId: 1 }], prePaymentSum: 1000 } },
    notification: { emails: ['client@example.ru'], phones: ['+79161234567'] },
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const pools = spec.urls.map((url, i) => {
    const workers = Math.floor(spec.inFlight / spec.urls.length) + (i < spec.inFlight % spec.urls.length ? 1 : 0);
    return new Pool(url, { connections: Math.max(1, workers), pipelining: 1 });
  });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let n = 0;
  const count = (key: string) => (statuses[key] = (statuses[key] ?? 0) + 1);

  const send = async (pool: Pool): Promise<void> => {
    const r = spec.request;
    const started = performance.now();
    if (r.kind === 'get') {
      const res = await pool.request({ method: 'GET', path: r.path });
      await res.body.dump();
      count(String(res.statusCode));
    } else {
      const i = n++;
      const res = await pool.request({
        method: 'PUT',
        path: CREATE_PATH,
        headers: { 'content-type': 'application/json', 'x-service-api-key': spec.key ?? BENCH_KEYS.shop },
        body: orderBody(`${r.prefix}-${i}`, r.lockers[i % r.lockers.length]!, r.date),
      });
      const text = await res.body.text();
      count(res.statusCode === 200 && text.startsWith('{"reserved":[]') ? 'rejected' : String(res.statusCode));
    }
    latencies.push(performance.now() - started);
  };

  const started = performance.now();
  const end = started + spec.durationMs;
  let begun = 0;
  const more = (): boolean => (spec.requests !== undefined ? begun < spec.requests : performance.now() < end);
  const worker = async (pool: Pool): Promise<void> => {
    while (more()) {
      begun++;
      await send(pool);
    }
  };
  await Promise.all(Array.from({ length: spec.inFlight }, (_, i) => worker(pools[i % pools.length]!)));
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(pools.map((p) => p.close()));
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    statuses,
  };
}

const spec = JSON.parse(process.argv[2]!) as LoadSpec;
process.stdout.write(`${JSON.stringify(await runLoad(spec))}\n`);
