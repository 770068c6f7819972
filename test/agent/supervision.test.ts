/** Doors and boards watched by the agent: left open, opened unexpectedly, boards that go quiet. */
import { afterEach, describe, expect, it } from 'vitest';
import { NOON, cell, eventBodies, grant, lockerConfig, order, parcel } from './fixtures.js';
import { pollsPassed, signInCourier, simCell, startHarness, waitFor, type Harness } from './harness.js';

const HOUR = 3_600_000;

function eventsOfType(h: Harness, type: string): unknown[] {
  return (eventBodies(h.agent.store) as { type: string }[]).filter((e) => e.type === type);
}

describe('door and board supervision', () => {
  let h: Harness;
  afterEach(async () => h?.stop());

  it('a door left open past its limit raises left_open, and closed when it shuts; the load still commits', async () => {
    h = await startHarness({ config: { doors: { pollMs: 30, leftOpenMs: 5 * 60_000 } } });
    h.send(
      { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M')]) },
      { type: 'courier.grant', grant: grant('g1', '111111', NOON + 6 * HOUR) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2 })]) },
    );
    await signInCourier(h, '111111');
    await h.post('/api/scan', { barcode: 'B1' });
    h.clock.advance(5 * 60_000 - 1);
    await pollsPassed(h);
    expect(eventsOfType(h, 'door.alarm')).toEqual([]);
    h.clock.advance(1);
    await waitFor(() => eventsOfType(h, 'door.alarm').length > 0, 'the left_open alarm');
    expect(eventsOfType(h, 'door.alarm')).toEqual([{ type: 'door.alarm', cellId: 2, kind: 'left_open' }]);
    h.clock.advance(60 * 60_000);
    await pollsPassed(h);
    expect(eventsOfType(h, 'door.alarm')).toHaveLength(1);
    h.sim.closeDoor(simCell(2));
    await waitFor(() => eventsOfType(h, 'door.alarm').length === 2, 'the closed alarm');
    const events = eventBodies(h.agent.store) as { type: string }[];
    expect(events.slice(-2)).toEqual([
      { type: 'door.alarm', cellId: 2, kind: 'closed' },
      { type: 'parcel.loaded', orderId: 'o1', barcode: 'B1', cellId: 2, grantId: 'g1' },
    ]);
  });

  it('a door opened with no operation raises opened_unexpectedly', async () => {
    h = await startHarness();
    h.send({ type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M')]) });
    await waitFor(() => h.agent.store.cells.get(1)?.door === 'closed', 'the first door reading');
    h.sim.openDoor(simCell(1));
    await waitFor(() => eventsOfType(h, 'door.alarm').length > 0, 'the alarm');
    expect(eventsOfType(h, 'door.alarm')).toEqual([{ type: 'door.alarm', cellId: 1, kind: 'opened_unexpectedly' }]);
    h.sim.closeDoor(simCell(1));
    await waitFor(() => eventsOfType(h, 'door.alarm').length === 2, 'the closed alarm');
    expect(eventsOfType(h, 'door.alarm')[1]).toEqual({ type: 'door.alarm', cellId: 1, kind: 'closed' });
  });

  it('on four boards, the same lock number on different boards is a different door', async () => {
    h = await startHarness({ boards: 4 });
    h.send(
      { type: 'locker.config', config: lockerConfig([1, 2, 3, 4].map((id) => cell(id, 5, 'S', { board: id - 1 }))) },
      { type: 'courier.grant', grant: grant('g1', '111111', NOON + 6 * HOUR) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 4 })]) },
    );
    await waitFor(() => h.agent.store.cells.all().every((c) => c.door === 'closed'), 'the first door reading');
    h.sim.openDoor(simCell(5, 2));
    await waitFor(() => eventsOfType(h, 'door.alarm').length > 0, 'the alarm');
    expect(eventsOfType(h, 'door.alarm')).toEqual([{ type: 'door.alarm', cellId: 3, kind: 'opened_unexpectedly' }]);
    await signInCourier(h, '111111');
    expect((await h.post('/api/scan', { barcode: 'B1' })).view).toMatchObject({ screen: 'load_open', cellId: 4 });
    await waitFor(() => h.agent.store.cells.get(4)?.door === 'open', 'the load door seen open');
    h.sim.closeDoor(simCell(5, 3));
    await waitFor(() => eventsOfType(h, 'parcel.loaded').length > 0, 'the load');
    expect(eventsOfType(h, 'parcel.loaded')).toEqual([{ type: 'parcel.loaded', orderId: 'o1', barcode: 'B1', cellId: 4, grantId: 'g1' }]);
    expect(h.agent.store.cells.all().map((c) => c.door)).toEqual(['closed', 'closed', 'open', 'closed']);
    expect(eventsOfType(h, 'door.alarm')).toHaveLength(1);
  });

  it('a board that stops answering is reported once, its cells are skipped, and its return is reported', async () => {
    h = await startHarness({ boards: 2 });
    h.send(
      { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S', { board: 1 }), cell(2, 2, 'S')]) },
      { type: 'courier.grant', grant: grant('g1', '111111', NOON + 6 * HOUR) },
      { type: 'order.upsert', order: order('o1', [parcel('B1')]) },
    );
    h.sim.setFault({ kind: 'no-reply', bus: 'main', board: 1 });
    await waitFor(() => eventsOfType(h, 'board.state').length > 0, 'the board.state event');
    expect(eventsOfType(h, 'board.state')).toEqual([{ type: 'board.state', bus: 'main', board: 1, online: false }]);
    await signInCourier(h, '111111');
    const s = await h.post('/api/scan', { barcode: 'B1' });
    expect(s.view).toMatchObject({ screen: 'load_open', cellId: 2 });
    expect(h.agent.store.cells.get(1)?.flags).toEqual([]);
    h.sim.clearFaults();
    await waitFor(() => eventsOfType(h, 'board.state').length === 2, 'the board back online');
    expect(eventsOfType(h, 'board.state')).toEqual([
      { type: 'board.state', bus: 'main', board: 1, online: false },
      { type: 'board.state', bus: 'main', board: 1, online: true },
    ]);
  });
});
