/**
 * The Postman collection (docs/collection/) as an integrator runs it: the cloud started as
 * `npm run cloud` starts it, with the example fleet (its sandbox locker 901 run by the cloud), and
 * the collection run by Newman's runner with the committed environment, only the base URL set to
 * the started cloud. Every request must answer and every assertion of its test script hold.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import newman, { type NewmanRunSummary } from 'newman';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COLLECTION_FILE, ENVIRONMENT_FILE } from '../../scripts/generate-collection.js';
import { startCloudProcess, type CloudProcess } from '../cloud/helpers/cloud-process.js';
import { eventually } from '../helpers/eventually.js';

const SANDBOX_KEY = 'demo-sandbox-shop-key';

let dir: string;
let cloud: CloudProcess;

function runCollection(baseUrl: string): Promise<NewmanRunSummary> {
  return new Promise((resolve, reject) => {
    newman.run(
      {
        collection: JSON.parse(readFileSync(COLLECTION_FILE, 'utf8')) as object,
        environment: JSON.parse(readFileSync(ENVIRONMENT_FILE, 'utf8')) as object,
        envVar: [{ key: 'baseUrl', value: baseUrl }],
        reporters: [],
        // A bound, not a pace: a sandbox play answers once its effect happened (itself bounded at 60 s).
        timeoutRequest: 90_000,
      },
      (err, summary) => (err ? reject(err) : resolve(summary)),
    );
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'collection-'));
  // The example fleet as it is, but for its receivers: on a shared machine a demo's receiver may
  // listen at the address they name, and this run's notifications are not for it.
  const fleet = JSON.parse(readFileSync('deploy/fleet.example.json', 'utf8')) as { marketplaces: Record<string, unknown>[] };
  fleet.marketplaces = fleet.marketplaces.map(({ receiver: _receiver, ...m }) => m);
  writeFileSync(join(dir, 'fleet.json'), JSON.stringify(fleet));
  cloud = await startCloudProcess({
    FLEET_FILE: join(dir, 'fleet.json'),
    SQLITE_PATH: join(dir, 'cloud.sqlite'),
    SANDBOX_DATA_DIR: join(dir, 'sandbox'),
    LOG_LEVEL: 'info',
  });
  // Ready when the cloud runs the sandbox locker, as an integrator checks before a run.
  await eventually(async () => {
    const res = await fetch(`${cloud.url}/api/v4/sandbox/lockers`, { headers: { 'x-service-api-key': SANDBOX_KEY } });
    const body = (await res.json()) as { postamats?: { postamatId: number; running: boolean }[] };
    return body.postamats?.some((l) => l.postamatId === 901 && l.running);
  }, 'the cloud running sandbox locker 901', 90_000);
}, 120_000);

afterAll(async () => {
  await cloud?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('runs the collection against `npm run cloud` with the example fleet: no request error, no failed assertion', async () => {
  const summary = await runCollection(cloud.url);
  const failures = summary.run.failures.map((f) => `${f.source?.name ?? '?'}: ${f.error.message}`);
  expect(failures, cloud.output().slice(-4000)).toEqual([]);
  expect(summary.run.stats.requests.failed).toBe(0);
  expect(summary.run.stats.assertions.failed).toBe(0);
  // Every request ran and asserted something.
  expect(summary.run.stats.requests.total).toBe(21);
  expect(summary.run.stats.assertions.total).toBeGreaterThan(2 * 21);

  // Again, as an integrator re-runs it: the run's own externalIds, and the reset left the locker empty.
  const again = await runCollection(cloud.url);
  expect(again.run.failures.map((f) => `${f.source?.name ?? '?'}: ${f.error.message}`)).toEqual([]);
  expect(again.run.stats.requests.total).toBe(21);
}, 180_000);
