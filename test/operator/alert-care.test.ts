/**
 * Alerts that reach people, through real HTTP: an alert is assigned (to nobody again, not once
 * resolved), carries operators' notes oldest first (a resolved one keeps its story), shows both in
 * every list, and each change is in the audit log with the alert's locker.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { type FactsCloud, KEYS, startFactsCloud } from '../locker-events/facts-cloud.js';

describe.each(testEngines())('alert assignee and notes on %s', (engine) => {
  let fc: FactsCloud;
  beforeAll(async () => {
    fc = await startFactsCloud(engine);
  });
  afterAll(async () => fc.stop());
  beforeEach(async () => {
    await fc.reset();
    await fc.db.db.deleteFrom('locker_alerts').execute();
    await fc.db.db.deleteFrom('alert_notes').execute();
    await fc.db.db.deleteFrom('operator_audit').execute();
  });
  const op = { operatorKey: KEYS.operator };

  it('assigns, notes, lists both and audits each', async () => {
    await fc.fact(1, { type: 'door.alarm', cellId: 2, kind: 'left_open' });
    const [alert] = (await fc.call('GET', '/operator/alerts?status=open', op)).body.alerts;
    expect(alert).toMatchObject({ postamatId: 1, cellId: 2, assignee: null, notes: [] });
    const id = alert.id as number;

    const assigned = await fc.call('POST', `/operator/alerts/${id}/assign`, { ...op, body: { assignee: 'field-tech-3', note: 'on site by noon' } });
    expect(assigned).toMatchObject({ status: 200, body: { id, assignee: 'field-tech-3', status: 'open' } });
    fc.clock.advance(60_000);
    expect((await fc.call('POST', `/operator/alerts/${id}/notes`, { ...op, body: { text: 'customer called: door would not close' } })).status).toBe(200);
    fc.clock.advance(60_000);
    const noted = await fc.call('POST', `/operator/alerts/${id}/notes`, { ...op, body: { text: 'hinge replaced' } });
    expect(noted.body.notes).toEqual([
      { at: new Date(fc.clock.now() - 60_000).toISOString(), operator: 'ops', text: 'customer called: door would not close' },
      { at: new Date(fc.clock.now()).toISOString(), operator: 'ops', text: 'hinge replaced' },
    ]);
    // Every list shows them: the alerts and the locker's alerts.
    expect((await fc.call('GET', '/operator/alerts?status=open', op)).body.alerts[0]).toMatchObject({ assignee: 'field-tech-3', notes: [{}, {}] });
    expect((await fc.call('GET', '/operator/lockers/1/alerts', op)).body.items[0]).toMatchObject({ id, assignee: 'field-tech-3', notes: [{}, {}] });

    // Back to nobody; the same assignee again changes nothing (no second audit entry).
    expect((await fc.call('POST', `/operator/alerts/${id}/assign`, { ...op, body: { assignee: null } })).body.assignee).toBeNull();
    expect((await fc.call('POST', `/operator/alerts/${id}/assign`, { ...op, body: { assignee: null } })).status).toBe(200);
    const audit = (await fc.call('GET', `/operator/audit?target=alert:${id}`, op)).body.items as { action: string; note: string | null; lockerId: number; detail: Record<string, unknown> }[];
    expect(audit.map((e) => [e.action, e.note, e.lockerId])).toEqual([
      ['alert.assign', null, 1],
      ['alert.note', 'hinge replaced', 1],
      ['alert.note', 'customer called: door would not close', 1],
      ['alert.assign', 'on site by noon', 1],
    ]);
    expect(audit[0]!.detail).toMatchObject({ from: 'field-tech-3', to: null });

    // Resolved: no more assigning, notes still welcome.
    expect((await fc.call('POST', `/operator/alerts/${id}/resolve`, { ...op, body: { reason: 'fixed' } })).status).toBe(200);
    expect((await fc.call('POST', `/operator/alerts/${id}/assign`, { ...op, body: { assignee: 'ops' } })).body).toMatchObject({ resultCode: 3 });
    expect((await fc.call('POST', `/operator/alerts/${id}/notes`, { ...op, body: { text: 'checked a week later' } })).body.notes).toHaveLength(3);
  });

  it('refuses an unknown alert, a blank note and an overlong assignee with the error envelope', async () => {
    await fc.fact(1, { type: 'door.alarm', cellId: 2, kind: 'left_open' });
    const id = (await fc.call('GET', '/operator/alerts?status=open', op)).body.alerts[0].id as number;
    for (const [path, body] of [
      ['/operator/alerts/999999/assign', { assignee: 'ops' }],
      [`/operator/alerts/${id}/notes`, { text: '   ' }],
      [`/operator/alerts/${id}/assign`, { assignee: 'x'.repeat(65) }],
      [`/operator/alerts/${id}/assign`, {}],
    ] as const) {
      const answer = await fc.call('POST', path, { ...op, body });
      expect(answer.status, path).toBe(400);
      expect(answer.body, path).toMatchObject({ resultCode: 3, message: expect.any(String) });
    }
  });
});
