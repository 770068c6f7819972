/** The courier flow through the real serialport stack: bus and scanner behind pseudo-terminals. */
import { afterEach, describe, expect, it } from 'vitest';
import { requires } from '../helpers/requirements.js';
import { NOON, cell, eventBodies, grant, lockerConfig, order, parcel } from './fixtures.js';
import { signInCourier, simCell, startHarness, type Harness } from './harness.js';

describe.runIf(requires('socat'))('courier load over a pseudo-terminal', () => {
  let h: Harness;
  afterEach(async () => h?.stop());

  it('loads into the reserved cell and into a cell chosen on the spot', async () => {
    h = await startHarness({ via: 'pty' });
    expect(h.config.buses[0]!.path.startsWith('/')).toBe(true);
    h.send(
      { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M'), cell(3, 3, 'L')]) },
      { type: 'courier.grant', grant: grant('g1', '111111', NOON + 3_600_000) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 3 }), parcel('B2')]) },
    );
    await signInCourier(h, '111111');
    await h.sim.scan('B1');
    const first = await h.until((s) => s.view.screen === 'load_open', 'the reserved cell');
    expect(first.view).toMatchObject({ cellId: 3 });
    h.sim.closeDoor(simCell(3));
    await h.until((s) => s.view.screen === 'courier' && s.view.notice !== null, 'the first load');
    await h.sim.scan('B2');
    const second = await h.until((s) => s.view.screen === 'load_open', 'a cell on the spot');
    expect(second.view).toMatchObject({ cellId: 1, barcode: 'B2' });
    h.sim.closeDoor(simCell(1));
    await h.until((s) => s.view.screen === 'courier' && s.view.notice?.kind === 'loaded' && s.view.notice.barcode === 'B2', 'the second load');
    expect(h.agent.store.parcels.ofOrder('o1').map((p) => [p.barcode, p.cellId, p.state])).toEqual([
      ['B1', 3, 'in_cell'],
      ['B2', 1, 'in_cell'],
    ]);
    // Only the loads: under load a slow board may also be reported offline and back (board.state).
    expect(eventBodies(h.agent.store).filter((e) => (e as { type: string }).type === 'parcel.loaded')).toEqual([
      { type: 'parcel.loaded', orderId: 'o1', barcode: 'B1', cellId: 3, grantId: 'g1' },
      { type: 'parcel.loaded', orderId: 'o1', barcode: 'B2', cellId: 1, grantId: 'g1' },
    ]);
  });
});
