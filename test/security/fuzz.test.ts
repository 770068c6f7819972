/**
 * Property-based fuzzing of every operation in the cloud's OpenAPI document (/docs/json), on
 * SQLite and, with DATABASE_URL, on PostgreSQL. For each operation, a fixed number of requests
 * drawn from a fixed seed: the right key, another owner's key, wrong keys, no key; bodies derived
 * from the operation's schema, then mutated (wrong types, odd and megabyte strings, unknown and
 * missing fields), malformed JSON, wrong content types, odd and oversized query strings and
 * paths. The rules every answer must keep are in fuzz/checks.ts: an answer in time, never a 5xx,
 * refusals in the envelope {message, resultCode}, successes in the documented shape and only for
 * a valid key, a body beyond the limit refused with 413, a refused request changes no row, no
 * answer carries another marketplace's data.
 *
 * FUZZ_SEED and FUZZ_RUNS change the seed and the requests per operation; `npm run fuzz` runs
 * more and prints the outcomes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { type FuzzSession, documentOperations, failureReport, startFuzzSession } from './fuzz/fuzz-session.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20300304);
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
const TIMEOUT_MS = 10_000;

const operations = await documentOperations();

describe('the operations fuzzed', () => {
  it('are every operation of the document, in every group', () => {
    const groups = new Set(operations.map((op) => /^\w+ (\/api\/v4|\/api\/v1|\/operator|\/health)/.exec(op.id)?.[1]));
    expect([...groups].sort()).toEqual(['/api/v1', '/api/v4', '/health', '/operator']);
    expect(operations.length).toBeGreaterThanOrEqual(16);
    // The probes are the only operations without a key; signing in to the console takes the key in its body.
    const open = new Set(['GET /health', 'GET /health/ready', 'POST /operator/session']);
    expect(operations.filter((op) => !open.has(op.id)).every((op) => op.keyKind !== undefined)).toBe(true);
  });
});

describe.each(testEngines())('fuzzing on %s', (engine) => {
  let session: FuzzSession;
  beforeAll(async () => {
    session = await startFuzzSession({ engine, seed: SEED, timeoutMs: TIMEOUT_MS, maxHugeBytes: 3 * 1024 * 1024 });
  });
  afterAll(async () => session?.stop());

  it.each(operations.map((op) => [op.id, op] as const))('%s', async (_id, op) => {
    const result = await session.fuzz(op, RUNS);
    expect(result.failures.length, failureReport(result, engine, SEED)).toBe(0);
    const cases = op.keyKind ? ['missing', 'other-owner', 'right', 'wrong'] : ['open'];
    expect([...result.byAuth.keys()].sort(), 'every key case was sent').toEqual(cases);
    expect(result.byInput.has('valid'), 'valid requests were sent').toBe(true);
  }, 180_000);
});
