/**
 * Start-up: boards are read and operations a crash interrupted are resolved against the doors
 * before anyone is served. The journal rows a crash would leave are written into the file
 * between two runs of the agent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NOON, cell, checkConsistency, eventBodies, grant, lockerConfig, order, parcel, pickupHash } from './fixtures.js';
import { loadParcel, signInCourier, simCell, startHarness, type Harness } from './harness.js';

describe('start-up reconciliation', () => {
  let h: Harness;
  afterEach(async () => h?.stop());

  async function withLoadedOrder(): Promise<void> {
    h = await startHarness();
    h.send(
      { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M'), cell(3, 3, 'L')]) },
      { type: 'courier.grant', grant: grant('g1', '111111', NOON + 3_600_000) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2 })]) },
    );
    await signInCourier(h, '111111');
    await loadParcel(h, 'B1');
    h.send({ type: 'order.upsert', order: order('o1', [parcel('B1', { state: 'loaded', cellId: 2 })], { state: 3, pickupCodeHash: pickupHash('5556667') }) });
  }

  it('a pick-up whose door is open at start is recorded as taken, without an unexpected-open alarm', async () => {
    await withLoadedOrder();
    await h.restart((store) => {
      store.tx(() => store.journal.begin({ kind: 'pickup', cellId: 2, detail: { parcels: [{ orderId: 'o1', barcode: 'B1' }] } }, NOON));
      h.sim.openDoor(simCell(2));
    });
    const { store } = h.agent;
    expect(store.journal.all()).toEqual([]);
    expect(store.parcels.get('o1', 'B1')).toMatchObject({ state: 'received' });
    expect(eventBodies(store).at(-1)).toEqual({ type: 'parcel.received', orderId: 'o1', barcode: 'B1', cellId: 2 });
    expect(eventBodies(store).filter((e) => (e as { type: string }).type === 'door.alarm')).toEqual([]);
    checkConsistency(store);
  });

  it('a pick-up whose door is closed at start records nothing, flags the cell, and the code still opens it', async () => {
    await withLoadedOrder();
    await h.restart((store) => {
      store.tx(() => store.journal.begin({ kind: 'pickup', cellId: 2, detail: { parcels: [{ orderId: 'o1', barcode: 'B1' }] } }, NOON));
    });
    const { store } = h.agent;
    expect(store.parcels.get('o1', 'B1')).toMatchObject({ state: 'in_cell', cellId: 2 });
    expect(store.cells.get(2)?.flags).toEqual(['needs_inventory']);
    expect(eventBodies(store).at(-1)).toEqual({ type: 'cell.flags', cellId: 2, flags: ['needs_inventory'], reason: 'interrupted_operation' });
    await h.post('/api/choose', { kind: 'customer' });
    const s = await h.post('/api/code', { kind: 'customer', code: '5556667' });
    expect(s.view).toMatchObject({ screen: 'take_open', cells: [2] });
    expect(store.parcels.get('o1', 'B1')?.state).toBe('received');
    checkConsistency(store);
  });

  it('a load whose pulse was never confirmed and whose door is closed is dropped; an open door with no operation is reported', async () => {
    await withLoadedOrder();
    h.send({ type: 'order.upsert', order: order('o2', [parcel('C1')]) });
    const before = h.agent.store.outbox.lastDseq();
    await h.restart((store) => {
      store.tx(() => store.journal.begin({ kind: 'load', cellId: 1, detail: { orderId: 'o2', barcode: 'C1', grantId: 'g1' } }, NOON));
      h.sim.openDoor(simCell(3));
    });
    const { store } = h.agent;
    expect(store.journal.all()).toEqual([]);
    expect(store.cells.get(1)?.flags).toEqual([]);
    expect(eventBodies(store, before)).toEqual([{ type: 'door.alarm', cellId: 3, kind: 'opened_unexpectedly' }]);
    checkConsistency(store);
  });
});
