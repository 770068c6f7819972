/**
 * The locker's facts about cells and itself: flags it raises feed allocation and come back to it
 * as the cloud's flags; alarms, boards and keypad facts are kept for operators.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testEngines } from '../helpers/cloud-db.js';
import { KEYS, orderBody, startFactsCloud, type FactsCloud } from './facts-cloud.js';

describe.each(testEngines())('cell and locker facts (%s)', (engine) => {
  let fc: FactsCloud;
  beforeEach(async () => {
    fc = await startFactsCloud(engine);
  });
  afterEach(async () => {
    await fc.stop();
  });

  const flagsOf = async (cellId: number) => {
    const c = await fc.db.db.selectFrom('cells').selectAll().where('locker_id', '=', 1).where('id', '=', cellId).executeTakeFirstOrThrow();
    return { faulty: c.faulty, dirty: c.dirty, needs_inventory: c.needs_inventory, blocked: c.blocked };
  };
  const mediumOrder = (externalId: string) =>
    fc.call('PUT', '/api/v4/auth/delivery/smartorder/create', {
      key: KEYS.shopA,
      body: orderBody(externalId, { parcels: [{ barcode: `${externalId}-P1`, dimension: { length: 300, width: 350, height: 150 } }] }),
    });

  it('a jammed door takes the cell out of allocation; recovery clears what the locker raised, not what the operator set', async () => {
    const after = (await fc.commands(1)).at(-1)?.cseq ?? 0;
    await fc.fact(1, { type: 'cell.flags', cellId: 3, flags: ['faulty'], reason: 'door_jammed' });
    expect(await flagsOf(3)).toEqual({ faulty: 1, dirty: 0, needs_inventory: 0, blocked: 0 });
    expect(await fc.commands(1, after)).toMatchObject([{ type: 'cell.flags', cellId: 3, flags: ['faulty'] }]); // the cloud's flags now
    expect((await mediumOrder('A1')).body.reserved).toEqual([{ cellId: 4, externalId: 'A1', barcodes: ['A1-P1'] }]);

    const op = await fc.call('PUT', '/operator/postamats/1/cells/3/flags', { operatorKey: KEYS.operator, body: { dirty: true } });
    expect(op.body.flags).toEqual(['faulty', 'dirty']);
    await fc.fact(1, { type: 'cell.flags', cellId: 3, flags: [], reason: 'recovered' });
    expect(await flagsOf(3)).toEqual({ faulty: 0, dirty: 1, needs_inventory: 0, blocked: 0 });
    await fc.call('PUT', '/operator/postamats/1/cells/3/flags', { operatorKey: KEYS.operator, body: { dirty: false } });
    expect((await mediumOrder('A2')).body.reserved).toEqual([{ cellId: 3, externalId: 'A2', barcodes: ['A2-P1'] }]);
  });

  it('an interrupted operation adds needs_inventory to what the cell already had', async () => {
    await fc.call('PUT', '/operator/postamats/1/cells/2/flags', { operatorKey: KEYS.operator, body: { blocked: true } });
    // The locker's view may lack a flag it has not applied yet: the cloud keeps it.
    await fc.fact(1, { type: 'cell.flags', cellId: 2, flags: ['needs_inventory'], reason: 'interrupted_operation' });
    expect(await flagsOf(2)).toEqual({ faulty: 0, dirty: 0, needs_inventory: 1, blocked: 1 });
  });

  it('door, board and keypad facts are kept for operators, newest first; routine ones as history', async () => {
    await fc.fact(1, { type: 'door.alarm', cellId: 2, kind: 'left_open' });
    await fc.fact(1, { type: 'door.alarm', cellId: 2, kind: 'closed' });
    await fc.fact(1, { type: 'board.state', bus: 'main', board: 0, online: false });
    await fc.fact(1, { type: 'code.attempt', kind: 'customer', ok: false });
    await fc.fact(1, { type: 'keypad.alarm', kind: 'customer', failuresToday: 20 });
    type Row = { kind: string; severity: string; cellId: number | null; detail: unknown; status: string };
    const view = (a: Row) => [a.kind, a.severity, a.cellId, a.detail, a.status];
    const all = await fc.call('GET', '/operator/alerts?postamatId=1&include=history', { operatorKey: KEYS.operator });
    expect(all.body.alerts.map(view)).toEqual([
      ['keypad.alarm', 'warning', null, { kind: 'customer', failuresToday: 20 }, 'open'],
      ['code.attempt', 'info', null, { kind: 'customer', ok: false }, 'history'],
      ['board.state', 'critical', null, { bus: 'main', board: 0, online: false }, 'open'],
      ['door.alarm', 'info', 2, { kind: 'closed' }, 'history'],
      // The door closing resolved its alarm.
      ['door.alarm', 'warning', 2, { kind: 'left_open' }, 'resolved'],
    ]);
    const alerts = await fc.call('GET', '/operator/alerts?postamatId=1', { operatorKey: KEYS.operator });
    expect(alerts.body.alerts.map((a: Row) => a.kind)).toEqual(['keypad.alarm', 'board.state', 'door.alarm']);
    const warnings = await fc.call('GET', '/operator/alerts?postamatId=1&severity=warning&limit=1', { operatorKey: KEYS.operator });
    expect(warnings.body.alerts.map((a: { kind: string }) => a.kind)).toEqual(['keypad.alarm']);
    expect(all.body.alerts[0].dseq).toBe(5);
    expect((await fc.call('GET', '/operator/alerts')).status).toBe(401);
  });
});
