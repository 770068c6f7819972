/** Courier loads against the simulator: reserved cell, cell chosen on the spot, refusals, faults. */
import { afterEach, describe, expect, it } from 'vitest';
import { eventBodies, cell, grant, lockerConfig, order, parcel, NOON } from './fixtures.js';
import { loadParcel, simCell, startHarness, waitFor, type Harness } from './harness.js';

const HOUR = 3_600_000;
const CELLS = [cell(1, 1, 'S'), cell(2, 2, 'M'), cell(3, 3, 'L'), cell(4, 4, 'S')];

async function signIn(h: Harness, code = '111111') {
  await h.post('/api/choose', { kind: 'courier' });
  return h.post('/api/code', { kind: 'courier', code });
}

describe('courier at the locker (simulator over TCP)', () => {
  let h: Harness;
  afterEach(async () => h?.stop());

  async function setup() {
    h = await startHarness();
    h.send({ type: 'locker.config', config: lockerConfig(CELLS) }, { type: 'courier.grant', grant: grant('g1', '111111', NOON + 6 * HOUR) });
  }

  it('loads a scanned parcel into its reserved cell once the door is closed', async () => {
    await setup();
    h.send({ type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2 })]) });
    expect((await signIn(h)).view).toEqual({ screen: 'courier', notice: null });
    await h.sim.scan('B1');
    const open = await h.until((s) => s.view.screen === 'load_open', 'the reserved cell to open');
    expect(open.view).toMatchObject({ cellId: 2, barcode: 'B1', failedCells: [] });
    expect(h.sim.isOpen(simCell(2))).toBe(true);
    // nothing is recorded while the door is open
    expect(h.agent.store.parcels.get('o1', 'B1')).toBeNull();
    expect(h.agent.store.journal.all()).toMatchObject([{ kind: 'load', cellId: 2, stage: 'open' }]);
    h.sim.closeDoor(simCell(2));
    const done = await h.until((s) => s.view.screen === 'courier' && s.view.notice !== null, 'the load to commit');
    expect(done.view).toEqual({ screen: 'courier', notice: { kind: 'loaded', cellId: 2, barcode: 'B1' } });
    expect(h.agent.store.parcels.get('o1', 'B1')).toMatchObject({ cellId: 2, state: 'in_cell', loadedBy: 'g1' });
    expect(h.agent.store.journal.all()).toEqual([]);
    expect(eventBodies(h.agent.store)).toEqual([
      { type: 'code.attempt', kind: 'courier', ok: true },
      { type: 'parcel.loaded', orderId: 'o1', barcode: 'B1', cellId: 2, grantId: 'g1' },
    ]);
  });

  it('puts an unreserved parcel, typed by an additional barcode, into the smallest free fitting cell not reserved for another order', async () => {
    await setup();
    h.send(
      { type: 'order.upsert', order: order('o2', [parcel('C1', { additionalBarcodes: ['C1-ALT'] })]) },
      { type: 'order.upsert', order: order('o3', [parcel('D1', { cellId: 1 })]) },
    );
    await signIn(h);
    const open = await h.post('/api/scan', { barcode: 'C1-ALT' });
    expect(open.view).toMatchObject({ screen: 'load_open', cellId: 4, barcode: 'C1' });
    h.sim.closeDoor(simCell(4));
    await h.until((s) => s.view.screen === 'courier', 'the load to commit');
    expect(h.agent.store.parcels.get('o2', 'C1')).toMatchObject({ cellId: 4, state: 'in_cell' });
    expect(eventBodies(h.agent.store).at(-1)).toEqual({ type: 'parcel.loaded', orderId: 'o2', barcode: 'C1', cellId: 4, grantId: 'g1' });
    // the same parcel again is refused, naming its cell
    const again = await h.post('/api/scan', { barcode: 'C1' });
    expect(again.error).toEqual({ code: 'already_loaded', cellId: 4 });
  });

  it('a parcel that does not fit goes to a bigger cell; the first cell records nothing', async () => {
    await setup();
    h.send({ type: 'order.upsert', order: order('o2', [parcel('C1', { dimension: null })]) });
    await signIn(h);
    const first = await h.post('/api/scan', { barcode: 'C1' });
    expect(first.view).toMatchObject({ screen: 'load_open', cellId: 1 });
    const aborted = await h.post('/api/does-not-fit');
    expect(aborted.view).toMatchObject({ aborted: 'bigger' });
    h.sim.closeDoor(simCell(1));
    const second = await h.until((s) => s.view.screen === 'load_open' && s.view.cellId !== 1, 'a bigger cell');
    expect(second.view).toMatchObject({ cellId: 2 });
    h.sim.closeDoor(simCell(2));
    await h.until((s) => s.view.screen === 'courier' && s.view.notice !== null, 'the load');
    expect(h.agent.store.parcels.get('o2', 'C1')?.cellId).toBe(2);
    expect(eventBodies(h.agent.store).filter((e) => (e as { type: string }).type === 'parcel.loaded')).toHaveLength(1);
  });

  it('refuses a parcel before its dateDelivery (locker time) without opening anything', async () => {
    await setup();
    h.send(
      { type: 'courier.grant', grant: grant('g-late', '333333', NOON + 24 * HOUR) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2 })], { dateDelivery: '2030-03-11' }) },
    );
    // 23:59 on 2030-03-10 in Moscow (UTC+3)
    h.clock.t = Date.UTC(2030, 2, 10, 20, 59, 0);
    await signIn(h, '333333');
    const s = await h.post('/api/scan', { barcode: 'B1' });
    expect(s.error).toEqual({ code: 'not_deliverable_yet', date: '2030-03-11' });
    expect(h.sim.pulses(simCell(2))).toBe(0);
    expect(h.agent.store.journal.all()).toEqual([]);
    h.clock.t = Date.UTC(2030, 2, 10, 21, 0, 0);
    const ok = await h.post('/api/scan', { barcode: 'B1' });
    expect(ok.view).toMatchObject({ screen: 'load_open', cellId: 2 });
  });

  it('refuses cancelled and unknown parcels', async () => {
    await setup();
    h.send({ type: 'order.upsert', order: order('o1', [parcel('B1', { state: 'cancelled' }), parcel('B2')]) });
    await signIn(h);
    expect((await h.post('/api/scan', { barcode: 'B1' })).error).toEqual({ code: 'not_loadable' });
    expect((await h.post('/api/scan', { barcode: 'ZZZ' })).error).toEqual({ code: 'unknown_parcel' });
    expect(h.agent.store.journal.all()).toEqual([]);
  });

  it('refuses an expired grant and ends a session whose grant runs out', async () => {
    await setup();
    h.send(
      { type: 'courier.grant', grant: grant('g-old', '222222', NOON - 1) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2 })]) },
    );
    const refused = await signIn(h, '222222');
    expect(refused.error).toEqual({ code: 'code_expired' });
    expect(refused.view).toEqual({ screen: 'code', kind: 'courier' });
    expect(eventBodies(h.agent.store)).toEqual([{ type: 'code.attempt', kind: 'courier', ok: false }]);
    await signIn(h);
    h.clock.t = NOON + 6 * HOUR;
    // The session ends on the kiosk's next round or at the next scan, whichever comes first: wait
    // for the screen to say so rather than race the round with a scan.
    const ended = await h.until((st) => st.view.screen === 'start', 'the session to end');
    expect(ended.error).toEqual({ code: 'session_expired' });
    const s = await h.post('/api/scan', { barcode: 'B1' });
    expect(s.view).toEqual({ screen: 'start' });
    expect(h.sim.pulses(simCell(2))).toBe(0);
  });

  it('a jammed door flags the cell faulty and another fitting cell opens', async () => {
    await setup();
    h.send({ type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2 })]) });
    h.sim.setFault({ kind: 'jammed', bus: 'main', board: 0, lock: 2 });
    await signIn(h);
    const s = await h.post('/api/scan', { barcode: 'B1' });
    // the smallest free cell the parcel fits, not reserved for anyone
    expect(s.view).toMatchObject({ screen: 'load_open', cellId: 1, failedCells: [2] });
    expect(h.sim.pulses(simCell(2))).toBeGreaterThan(1);
    expect(h.agent.store.cells.get(2)?.flags).toEqual(['faulty']);
    expect(eventBodies(h.agent.store)).toContainEqual({ type: 'cell.flags', cellId: 2, flags: ['faulty'], reason: 'door_jammed' });
    h.sim.closeDoor(simCell(1));
    await h.until((s2) => s2.view.screen === 'courier' && s2.view.notice !== null, 'the load');
    expect(h.agent.store.parcels.get('o1', 'B1')?.cellId).toBe(1);
    // the faulty cell is not chosen again: a parcel needing a medium cell goes to the large one
    h.send({ type: 'order.upsert', order: order('o2', [parcel('C1', { dimension: { length: 350, width: 250, height: 250 } })]) });
    const next = await h.post('/api/scan', { barcode: 'C1' });
    expect(next.view).toMatchObject({ screen: 'load_open', cellId: 3, failedCells: [] });
    expect(h.sim.pulses(simCell(2))).toBe(2);
  });

  it('collects returns: orders awaiting return and cancelled positions still in cells', async () => {
    await setup();
    h.send(
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 1 })]) },
      { type: 'order.upsert', order: order('o2', [parcel('C1', { cellId: 2 }), parcel('C2', { cellId: 3 })]) },
      { type: 'order.upsert', order: order('o3', [parcel('D1', { cellId: 4 })], { marketplaceId: 'mp-2' }) },
    );
    // Loads, like returns, are limited to the courier's marketplaces: mp-2's own courier loads D1.
    h.send({ type: 'courier.grant', grant: grant('g2', '222222', NOON + 6 * HOUR, { marketplaceIds: ['mp-2'] }) });
    await signIn(h, '222222');
    expect(await loadParcel(h, 'D1')).toBe(4);
    await h.post('/api/home');
    await signIn(h);
    for (const barcode of ['B1', 'C1', 'C2']) await loadParcel(h, barcode);
    expect((await h.get('/api/state')).returns).toBe(0);
    // storage of o1 ran out; one position of o2 was cancelled; o3 (another marketplace) also awaits return
    h.send(
      { type: 'order.upsert', order: order('o1', [parcel('B1', { state: 'awaiting_return', cellId: 1 })], { state: 7 }) },
      { type: 'order.upsert', order: order('o2', [parcel('C1', { state: 'cancelled', cellId: 2 }), parcel('C2', { state: 'loaded', cellId: 3 })], { state: 3 }) },
      { type: 'order.upsert', order: order('o3', [parcel('D1', { state: 'awaiting_return', cellId: 4 })], { state: 7, marketplaceId: 'mp-2' }) },
    );
    expect((await h.get('/api/state')).returns).toBe(2);
    const before = h.agent.store.outbox.lastDseq();
    const s = await h.post('/api/returns');
    expect(s.view).toEqual({ screen: 'take_open', kind: 'return', cells: [1, 2], failedCells: [] });
    expect(eventBodies(h.agent.store, before)).toEqual([
      { type: 'parcel.returned', orderId: 'o1', barcode: 'B1', cellId: 1, grantId: 'g1' },
      { type: 'parcel.returned', orderId: 'o2', barcode: 'C1', cellId: 2, grantId: 'g1' },
    ]);
    expect(h.agent.store.parcels.get('o1', 'B1')).toMatchObject({ state: 'returned', takenBy: 'g1' });
    expect(h.agent.store.parcels.get('o2', 'C2')?.state).toBe('in_cell');
    expect(h.agent.store.parcels.get('o3', 'D1')?.state).toBe('in_cell');
    h.sim.closeDoor(simCell(1));
    h.sim.closeDoor(simCell(2));
    const after = await h.until((x) => x.view.screen === 'courier', 'doors closed');
    expect(after.view).toEqual({ screen: 'courier', notice: { kind: 'returned', count: 2 } });
    expect(after.returns).toBe(0);
    expect((await h.post('/api/returns')).error).toEqual({ code: 'nothing_to_collect' });
  });

  it('scans from the serial scanner reach only a signed-in courier', async () => {
    await setup();
    h.send({ type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2 })]) });
    await h.sim.scan('B1');
    await h.post('/api/choose', { kind: 'courier' });
    await new Promise((r) => setTimeout(r, 100));
    expect(h.sim.pulses(simCell(2))).toBe(0);
    await h.post('/api/code', { kind: 'courier', code: '111111' });
    await h.sim.scan('B1');
    await waitFor(() => h.sim.isOpen(simCell(2)), 'the cell to open');
  });
});
