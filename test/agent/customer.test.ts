/** Customer pick-up and the keypad's back-off, against the simulator. */
import { afterEach, describe, expect, it } from 'vitest';
import { NOON, cell, eventBodies, grant, lockerConfig, order, parcel, pickupHash } from './fixtures.js';
import { loadParcel, pollsPassed, signInCourier, simCell, startHarness, type Harness } from './harness.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const CELLS = [cell(1, 1, 'S'), cell(2, 2, 'M'), cell(3, 3, 'L'), cell(4, 4, 'S')];

describe('customer at the locker', () => {
  let h: Harness;
  afterEach(async () => h?.stop());

  it('opens every cell of a multi-parcel order, records each parcel received at the open, and ends when the doors close', async () => {
    h = await startHarness();
    h.send(
      { type: 'locker.config', config: lockerConfig(CELLS) },
      { type: 'courier.grant', grant: grant('g1', '111111', NOON + 6 * HOUR) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 1 }), parcel('B2', { cellId: 2 }), parcel('B3', { cellId: 2 }), parcel('B4')]) },
    );
    await signInCourier(h, '111111');
    expect(await loadParcel(h, 'B1')).toBe(1);
    expect(await loadParcel(h, 'B2')).toBe(2);
    expect(await loadParcel(h, 'B3')).toBe(2);
    await h.post('/api/home');
    // B4's position was cancelled before loading; the order is Courier loaded with a pick-up code
    h.send({
      type: 'order.upsert',
      order: order(
        'o1',
        [
          parcel('B1', { state: 'loaded', cellId: 1 }),
          parcel('B2', { state: 'loaded', cellId: 2 }),
          parcel('B3', { state: 'loaded', cellId: 2 }),
          parcel('B4', { state: 'cancelled' }),
        ],
        { state: 3, pickupCodeHash: pickupHash('4455667'), holdUntil: NOON + 72 * HOUR },
      ),
    });
    const before = h.agent.store.outbox.lastDseq();
    await h.post('/api/choose', { kind: 'customer' });
    const s = await h.post('/api/code', { kind: 'customer', code: '4455667' });
    expect(s.view).toEqual({ screen: 'take_open', kind: 'pickup', cells: [1, 2], failedCells: [] });
    expect(h.sim.isOpen(simCell(1)) && h.sim.isOpen(simCell(2))).toBe(true);
    expect(eventBodies(h.agent.store, before)).toEqual([
      { type: 'code.attempt', kind: 'customer', ok: true },
      { type: 'parcel.received', orderId: 'o1', barcode: 'B1', cellId: 1 },
      { type: 'parcel.received', orderId: 'o1', barcode: 'B2', cellId: 2 },
      { type: 'parcel.received', orderId: 'o1', barcode: 'B3', cellId: 2 },
    ]);
    expect(h.agent.store.parcels.ofOrder('o1').map((p) => [p.barcode, p.state])).toEqual([
      ['B1', 'received'],
      ['B2', 'received'],
      ['B3', 'received'],
    ]);
    h.sim.closeDoor(simCell(1));
    await pollsPassed(h);
    expect((await h.get('/api/state')).view.screen).toBe('take_open');
    h.sim.closeDoor(simCell(2));
    await h.until((x) => x.view.screen === 'start', 'the start screen');
    // the same code again opens nothing
    await h.post('/api/choose', { kind: 'customer' });
    const again = await h.post('/api/code', { kind: 'customer', code: '4455667' });
    expect(again.error).toEqual({ code: 'nothing_to_pick_up' });
    expect(h.sim.pulses(simCell(1))).toBe(2);
    // no alarm for doors opened by the locker itself
    expect(eventBodies(h.agent.store).filter((e) => (e as { type: string }).type === 'door.alarm')).toEqual([]);
  });

  it('a code of an order not yet Courier loaded opens nothing', async () => {
    h = await startHarness();
    h.send(
      { type: 'locker.config', config: lockerConfig(CELLS) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 1 })], { state: 0, pickupCodeHash: pickupHash('1234567') }) },
    );
    await h.post('/api/choose', { kind: 'customer' });
    const s = await h.post('/api/code', { kind: 'customer', code: '1234567' });
    expect(s.error).toEqual({ code: 'wrong_code', waitMs: 0 });
    expect(h.sim.pulses(simCell(1))).toBe(0);
  });
});

describe('keypad back-off (agent clock moved by hand)', () => {
  let h: Harness;
  afterEach(async () => h?.stop());

  it('slows wrong codes down up to 15 minutes, per kind, resets on success, and raises one daily alarm', async () => {
    h = await startHarness({ config: { keypad: { freeAttempts: 2, baseDelayMs: 60_000, maxDelayMs: 900_000, dailyAlarmThreshold: 6 } } });
    h.send({ type: 'locker.config', config: lockerConfig(CELLS) }, { type: 'courier.grant', grant: grant('g1', '111111', NOON + 24 * HOUR) });
    await h.post('/api/choose', { kind: 'customer' });
    const wrong = () => h.post('/api/code', { kind: 'customer', code: '000000' });
    expect((await wrong()).error).toEqual({ code: 'wrong_code', waitMs: 0 });
    expect((await wrong()).error).toEqual({ code: 'wrong_code', waitMs: 0 });
    expect((await wrong()).error).toEqual({ code: 'wrong_code', waitMs: MINUTE });
    // while waiting, codes are not even checked
    const waiting = await wrong();
    expect(waiting.error).toEqual({ code: 'wait', waitMs: MINUTE });
    expect(waiting.waitMs).toEqual({ courier: 0, customer: MINUTE, service: 0 });
    h.clock.advance(MINUTE);
    expect((await wrong()).error).toEqual({ code: 'wrong_code', waitMs: 2 * MINUTE });
    h.clock.advance(2 * MINUTE);
    expect((await wrong()).error).toEqual({ code: 'wrong_code', waitMs: 4 * MINUTE });
    // the courier keypad is not slowed down by wrong pick-up codes
    const courier = await signInCourier(h, '111111');
    expect(courier.view).toEqual({ screen: 'courier', notice: null });
    await h.post('/api/home');
    await h.post('/api/choose', { kind: 'customer' });
    h.clock.advance(4 * MINUTE);
    expect((await wrong()).error).toEqual({ code: 'wrong_code', waitMs: 8 * MINUTE });
    h.clock.advance(8 * MINUTE);
    expect((await wrong()).error).toEqual({ code: 'wrong_code', waitMs: 15 * MINUTE });
    h.clock.advance(15 * MINUTE);
    expect((await wrong()).error).toEqual({ code: 'wrong_code', waitMs: 15 * MINUTE });
    const events = eventBodies(h.agent.store) as { type: string }[];
    expect(events.filter((e) => e.type === 'code.attempt')).toHaveLength(9);
    expect(events.filter((e) => e.type === 'keypad.alarm')).toEqual([{ type: 'keypad.alarm', kind: 'customer', failuresToday: 6 }]);
    expect(JSON.stringify(events)).not.toContain('000000');
    // a right code resets the back-off
    h.send({ type: 'order.upsert', order: order('o1', [parcel('B1')], { state: 3, pickupCodeHash: pickupHash('7654321') }) });
    h.clock.advance(15 * MINUTE);
    expect((await h.post('/api/code', { kind: 'customer', code: '7654321' })).error).toEqual({ code: 'nothing_to_pick_up' });
    await h.post('/api/choose', { kind: 'customer' });
    expect((await wrong()).error).toEqual({ code: 'wrong_code', waitMs: 0 });
    // the next locker day starts a new count: one more alarm only after 6 more failures that day
    h.clock.t = Date.UTC(2030, 2, 10, 21, 0, 0);
    for (let i = 0; i < 8; i++) {
      h.clock.advance(15 * MINUTE);
      await wrong();
    }
    const alarms = (eventBodies(h.agent.store) as { type: string }[]).filter((e) => e.type === 'keypad.alarm');
    expect(alarms).toHaveLength(2);
  });
});
