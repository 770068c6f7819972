/**
 * A cloud process killed with SIGKILL in the middle of delivering loses nothing: the rows it had
 * claimed become due again when their lease ends, and the restarted process delivers every
 * pending notification, in order per order, under the same X-Notification-Id.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { transaction } from '../../cloud/src/db/transaction.js';
import { fleetSchema } from '../../cloud/src/fleet/fleet-schema.js';
import { provisionFleet } from '../../cloud/src/fleet/provision.js';
import { recordChange } from '../../cloud/src/outbox/record-change.js';
import { statusDraft } from './helpers/drafts.js';
import { openTestDatabase, testEngines, type TestDatabase } from '../helpers/cloud-db.js';
import { databaseEnv, tsNode } from './helpers/cli.js';
import { notifyFleet } from './helpers/notify-cloud.js';
import { makeTestPki, type TestPki } from '../helpers/test-ca.js';
import { startReceiver, type TestReceiver } from '../helpers/test-receiver.js';
import { WAIT_BOUND_MS } from '../helpers/eventually.js';

const ENTRY = join(import.meta.dirname, 'helpers/cloud-process.ts');


async function startProcess(db: TestDatabase): Promise<ChildProcess> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATABASE_URL: undefined,
    SQLITE_PATH: undefined,
    PG_SCHEMA: undefined,
    ...databaseEnv(db),
    LOG_LEVEL: 'silent',
    // A 1 s answer timeout made a busy machine's slow answer count as lost and the call repeat.
    NOTIFY_TIMEOUT_SECONDS: '5',
    NOTIFY_LEASE_SECONDS: '6',
    NOTIFY_RETRY_SECONDS: '1',
    NOTIFY_POLL_SECONDS: '1',
    STORAGE_CLOCK_CRON: '0 0 1 1 *',
  };
  const child = tsNode(ENTRY, [], env);
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const lines = createInterface({ input: child.stdout });
  const [line] = (await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => [`exited: ${stderr}`])])) as [string];
  expect(line).toMatch(/^ready http:/);
  return child;
}

describe.each(testEngines())('a cloud killed while delivering (%s)', (engine) => {
  let pki: TestPki;
  let receiver: TestReceiver;
  let db: TestDatabase;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    pki = await makeTestPki();
  });
  afterEach(async () => {
    for (const c of children.splice(0)) {
      if (c.exitCode === null && c.signalCode === null) {
        c.kill('SIGKILL');
        await once(c, 'exit');
      }
    }
    await receiver.down();
    await db.close();
  });

  it('delivers every pending notification after a restart', async () => {
    receiver = await startReceiver(pki);
    db = await openTestDatabase(engine);
    await provisionFleet(db, fleetSchema.parse(notifyFleet(receiver, pki)), Date.now());
    await transaction(db, (tx) => recordChange(tx, { at: Date.now(), notifications: [statusDraft('A', 1), statusDraft('A', 2), statusDraft('B', 1), statusDraft('A', 3)] }));

    receiver.behaviour = () => 'hang';
    const first = await startProcess(db);
    children.push(first);
    await receiver.waitForCalls(2); // A-1 and B-1 in flight
    first.kill('SIGKILL');
    await once(first, 'exit');
    const inFlight = new Map(receiver.calls.map((c) => [(c.body as { barcode: string }).barcode, c.headers['x-notification-id']]));
    expect(receiver.delivered).toHaveLength(0);

    receiver.behaviour = () => 200;
    children.push(await startProcess(db));
    // Each notification delivered (a redelivery, same X-Notification-Id, is allowed: at least once).
    const firstDeliveries = () => receiver.delivered.filter((c, i, all) => all.findIndex((d) => d.headers['x-notification-id'] === c.headers['x-notification-id']) === i);
    await receiver.waitFor(() => firstDeliveries().length === 4);
    const delivered = firstDeliveries().map((c) => c.body as { id: string; barcode: string });
    expect(delivered.filter((b) => b.id === 'A').map((b) => b.barcode)).toEqual(['A-1', 'A-2', 'A-3']);
    expect(delivered.filter((b) => b.id === 'B').map((b) => b.barcode)).toEqual(['B-1']);
    for (const c of firstDeliveries()) {
      const barcode = (c.body as { barcode: string }).barcode;
      if (inFlight.has(barcode)) expect(c.headers['x-notification-id']).toBe(inFlight.get(barcode));
    }
    // The receiver has answered; the process records the last answers a moment later.
    await vi.waitFor(async () => expect(await db.db.selectFrom('notifications').select('id').where('delivered_at', 'is', null).execute()).toEqual([]), {
      timeout: WAIT_BOUND_MS,
      interval: 50,
    });
  });
});
