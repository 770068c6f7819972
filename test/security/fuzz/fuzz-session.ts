/**
 * The core shared by the test (test/security/fuzz.test.ts) and the command line
 * (test/security/fuzz-cli.ts): a cloud on one engine, the operations of its OpenAPI document, and
 * `fuzz(op, runs)`, which sends `runs` generated requests to one operation (from the same reset
 * state and the same seed, so a run is reproducible per operation), checks every answer and
 * counts outcomes per input class.
 */
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import type { Engine } from '../../../cloud/src/db/database.js';
import { KEYS, orderBody, routeBody } from '../../cloud/helpers/fleet-fixtures.js';
import { startTestCloud } from '../../cloud/helpers/test-cloud.js';
import { check } from './checks.js';
import { changedTables } from './db-snapshot.js';
import { SEED, startFuzzCloud, type FuzzCloud } from './fuzz-cloud.js';
import { send } from './http-send.js';
import { type OpenApiDocument, type Operation, operationsOf } from './openapi-operations.js';
import { type ApiKey, type FuzzContext, type FuzzRequest, requestArbitrary } from './request-cases.js';

export interface FuzzSettings {
  engine: Engine;
  seed: number;
  /** Longest wait for one answer. */
  timeoutMs: number;
  /** Largest huge string or oversize body, bytes. */
  maxHugeBytes: number;
}

export interface Failure {
  /** The broken rule, without the details that vary between requests. */
  rule: string;
  detail: string;
  auth: string;
  input: string;
  outcome: string;
  request: string;
  /** How many requests broke this rule in this input class. */
  count: number;
}

export interface OperationResult {
  op: string;
  seed: number;
  runs: number;
  /** outcome ("400 rc=3") -> count */
  outcomes: Map<string, number>;
  /** input class -> outcome -> count */
  byInput: Map<string, Map<string, number>>;
  /** auth case -> count */
  byAuth: Map<string, number>;
  failures: Failure[];
  /** Requests not sent because an earlier one went unanswered. */
  skipped: number;
  /** The longest wait for an answer (for the report; nothing is asserted on it). */
  slowestMs: number;
}

export interface FuzzSession {
  readonly engine: Engine;
  readonly operations: Operation[];
  fuzz(op: Operation, runs: number): Promise<OperationResult>;
  stop(): Promise<void>;
}

const KEY_LIST: ApiKey[] = [
  { key: KEYS.shopA, kind: 'marketplace', owner: 'shop-a' },
  { key: KEYS.shopB, kind: 'marketplace', owner: 'shop-b' },
  { key: KEYS.shopOff, kind: 'marketplace', owner: 'shop-off' },
  { key: KEYS.shopOrgOff, kind: 'marketplace', owner: 'shop-org-off' },
  { key: KEYS.partner, kind: 'partner', owner: 'courier-co' },
  { key: KEYS.partnerNone, kind: 'partner', owner: 'courier-none' },
  { key: KEYS.operator, kind: 'operator', owner: 'ops' },
];

function context(bodyLimit: number, maxHugeBytes: number): FuzzContext {
  const ids = [SEED.orderA, SEED.orderB, 'FZ-NEW-1'];
  const lockers = fc.constantFrom(1, 2, 3, 4, 99);
  return {
    right: { marketplace: KEY_LIST[0]!, partner: KEY_LIST[4]!, operator: KEY_LIST[6]! },
    others: KEY_LIST,
    bodyLimit,
    maxHugeBytes,
    examples: [
      // shop-a's seeded order (the right key's), twice as likely as a new one; still carrying the secret
      orderBody(SEED.orderA, { number: SEED.secret }),
      orderBody(SEED.orderA, { number: `${SEED.secret}-2` }),
      orderBody('FZ-NEW-1', { dateDelivery: '2030-03-06' }),
      routeBody({ externalId: SEED.courier }, { externalId: SEED.route }),
      routeBody({ externalId: 'courier-2', email: 'petr@example.ru', phone: '+79990000002' }, { externalId: 'route-2', postamatIds: [2] }),
      { extId: SEED.orderA, barcode: SEED.barcodeA },
      { extId: SEED.orderB, barcode: SEED.barcodeB },
      { extId: SEED.orderA },
      { barcode: SEED.barcodeA },
      { barcode: SEED.barcodeA, courierExternalId: SEED.courier, postamatAccessCode: '12345678' },
      { postamatId: 1, deliveryDate: '2030-03-05', parcelSize: { length: 300, width: 200, height: 80 } },
      { faulty: true, dirty: false },
      { ids: [1, 2] },
      { failing: true, marketplaceId: 'shop-a' },
    ],
    hints: {
      externalId: fc.constantFrom(...ids, SEED.courier, SEED.route),
      extId: fc.constantFrom(...ids),
      barcode: fc.constantFrom(SEED.barcodeA, SEED.barcodeB, 'FZ-NEW-1-P1'),
      courierExternalId: fc.constantFrom(SEED.courier, 'nobody'),
      postamatAccessCode: fc.stringMatching(/^\d{6}$/),
      postamatId: lockers,
      postamatIds: lockers,
      cellId: fc.integer({ min: 1, max: 7 }),
      cellsType: fc.constantFrom(0, 1),
      marketplaceId: fc.constantFrom('shop-a', 'shop-b', 'nope'),
      ids: fc.integer({ min: 1, max: 5 }),
      phone: fc.constant('+79161234567'),
      email: fc.constant('client@example.ru'),
    },
  };
}

/** The operations of the cloud's OpenAPI document, read from a cloud started for the purpose. */
export async function documentOperations(): Promise<Operation[]> {
  const tc = await startTestCloud('sqlite');
  try {
    const res = await fetch(`${tc.cloud.url}/docs/json`);
    return operationsOf((await res.json()) as OpenApiDocument);
  } finally {
    await tc.stop();
  }
}

/** Failures as text, with what reproduces them. */
export function failureReport(result: OperationResult, engine: Engine, seed: number): string {
  const lines = result.failures.map(
    (f) => `  ${f.detail.slice(0, 300)}\n    input ${f.input}, key ${f.auth}, answer ${f.outcome}, ${f.count}x; e.g. ${f.request.slice(0, 400)}`,
  );
  return [
    `${result.op} on ${engine}: ${result.failures.length} broken rule(s)`,
    ...lines,
    ...(result.skipped > 0 ? [`  ${result.skipped} request(s) not sent after a request went unanswered`] : []),
    `  reproduce: npm run fuzz -- --engine ${engine} --seed ${seed} --runs ${result.runs} --op '${result.op}'`,
  ].join('\n');
}

/** One seed per operation, so that each operation's run is reproducible on its own. */
export function operationSeed(seed: number, opId: string): number {
  let h = 0x811c9dc5;
  for (const c of opId) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  return (seed ^ h) | 0;
}

function describe(req: FuzzRequest): string {
  const headers = Object.entries(req.headers)
    .map(([k, v]) => `${k}: ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...(${v.length})` : v)}`)
    .join(', ');
  const body = req.body ? ` body(${req.body.length} B): ${JSON.stringify(req.body.subarray(0, 160).toString('utf8'))}` : '';
  const path = req.path.length > 160 ? `${req.path.slice(0, 160)}...(${req.path.length})` : req.path;
  return `${req.method} ${path} {${headers}}${body}`;
}

const bump = <K>(map: Map<K, number>, key: K): void => {
  map.set(key, (map.get(key) ?? 0) + 1);
};

export async function startFuzzSession(settings: FuzzSettings): Promise<FuzzSession> {
  const cloud: FuzzCloud = await startFuzzCloud(settings.engine);
  let operations: Operation[];
  try {
    const res = await fetch(`${cloud.url()}/docs/json`);
    operations = operationsOf((await res.json()) as OpenApiDocument);
  } catch (err) {
    await cloud.stop();
    throw err;
  }
  const ctx = context(cloud.bodyLimit, settings.maxHugeBytes);

  return {
    engine: settings.engine,
    operations,
    async fuzz(op, runs) {
      await cloud.reset();
      const seed = operationSeed(settings.seed, op.id);
      const result: OperationResult = { op: op.id, seed, runs, outcomes: new Map(), byInput: new Map(), byAuth: new Map(), failures: [], skipped: 0, slowestMs: 0 };
      const failures = new Map<string, Failure>();
      let before = await cloud.snapshot();
      let stalled = false;
      const property = fc.asyncProperty(requestArbitrary(op, ctx), async (req) => {
        // After a request went unanswered the rest of the run would only wait on the same stall.
        if (stalled) {
          result.skipped += 1;
          return true;
        }
        for (let time = 1; time <= req.times && !stalled; time++) {
          const started = performance.now();
          const reply = await send(cloud.url(), req, settings.timeoutMs);
          result.slowestMs = Math.max(result.slowestMs, Math.round(performance.now() - started));
          // A cloud that let a request go unanswered is replaced, so the next requests are judged on their own.
          if (reply.kind === 'timeout') {
            stalled = true;
            await cloud.restart();
          }
          const after = await cloud.snapshot();
          const verdict = check({ op, req, reply, changedTables: changedTables(before, after), secret: SEED.secret, bodyLimit: cloud.bodyLimit });
          before = after;
          bump(result.outcomes, verdict.outcome);
          bump(result.byAuth, req.auth);
          const perInput = result.byInput.get(req.input) ?? new Map<string, number>();
          bump(perInput, verdict.outcome);
          result.byInput.set(req.input, perInput);
          for (const broken of verdict.broken) {
            const rule = broken.split(':')[0]!;
            const key = `${rule}|${req.input}`;
            const known = failures.get(key);
            if (known) known.count += 1;
            else failures.set(key, { rule, detail: broken, auth: req.auth, input: req.input, outcome: verdict.outcome, request: `${time === 2 ? '(sent again) ' : ''}${describe(req)}`, count: 1 });
          }
        }
        return true; // every failure is collected above; none stops the run
      });
      const details = await fc.check(property, { seed, numRuns: runs, endOnFailure: true });
      if (details.failed) throw new Error(`fuzzing ${op.id} stopped (seed ${seed}): ${String(details.errorInstance)}`);
      result.failures = [...failures.values()];
      return result;
    },
    async stop() {
      await cloud.stop();
    },
  };
}
