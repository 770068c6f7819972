/**
 * The overview keeps the sandbox apart: a sandbox locker, its open alert and blocked cell count in
 * the overview's `sandbox` figures and never in the network's, through real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { type FactsCloud, KEYS, startFactsCloud } from '../locker-events/facts-cloud.js';

describe.each(testEngines())('sandbox lockers in the overview (%s)', (engine) => {
  let fc: FactsCloud;
  beforeAll(async () => {
    fc = await startFactsCloud(engine);
  });
  afterAll(async () => fc.stop());

  const op = { operatorKey: KEYS.operator };

  it("counts a sandbox locker, its alerts and cells in the sandbox's figures, not the network's", async () => {
    const before = (await fc.call('GET', '/operator/overview', op)).body;
    expect(before.sandbox.lockers.total).toBe(0);
    // Locker 2 made a sandbox locker (the fleet file's `"sandbox": true`), then it alarms and a cell is blocked.
    await fc.db.db.updateTable('lockers').set({ sandbox: 1 }).where('id', '=', 2).execute();
    await fc.fact(2, { type: 'door.alarm', cellId: 1, kind: 'opened_unexpectedly' });
    expect((await fc.call('PUT', '/operator/postamats/2/cells/2/flags', { ...op, body: { blocked: true, reason: 'hinge' } })).status).toBe(200);

    const after = (await fc.call('GET', '/operator/overview', op)).body;
    expect(after.lockers.total).toBe(before.lockers.total - 1);
    expect(after.openAlerts).toEqual(before.openAlerts);
    expect(after.cells.blocked).toBe(before.cells.blocked);
    expect(after.sandbox).toMatchObject({ lockers: { total: 1, offline: 1 }, openAlerts: { critical: 1 }, cells: { blocked: 1 } });
  });
});
