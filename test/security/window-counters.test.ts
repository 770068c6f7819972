/**
 * The shared hit counters under concurrency: hits that arrive together are counted in one upsert,
 * yet every hit counts and each gets its own place in the count, on every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WindowCounters } from '../../cloud/src/guard/window-counters.js';
import { openTestDatabase, testEngines, type TestDatabase } from '../helpers/cloud-db.js';

describe.each(testEngines())('window counters on %s', (engine) => {
  let tdb: TestDatabase;
  const clock = { now: () => 1_000_000 };
  beforeAll(async () => {
    tdb = await openTestDatabase(engine);
  });
  afterAll(async () => tdb.close());

  it('gives concurrent hits the places 1..n of one count, across keys and windows', async () => {
    const counters = new WindowCounters(tdb, clock);
    const hits = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        counters.hit([
          { key: 'shared', windowMs: 60_000 },
          { key: `own-${i % 3}`, windowMs: 1_000 },
        ]),
      ),
    );
    expect(hits.map((h) => h[0]!.hits).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    for (const k of [0, 1, 2]) {
      const own = hits.filter((h) => h[1]!.key === `own-${k}`).map((h) => h[1]!.hits);
      expect(own.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    }
    // A second process's counter adds to the same rows.
    const other = new WindowCounters(tdb, clock);
    expect((await other.hit([{ key: 'shared', windowMs: 60_000 }]))[0]!.hits).toBe(61);
  });
});
