/**
 * Commands that cause a physical action carry a maximum age, judged by the locker's own clock:
 * an operator's `cell.open` that reaches (or waits at) the locker too late is refused and
 * reported, nothing is pulsed; a reserved order whose intent outlived its reservation is not
 * loadable. First through the agent's command path against the simulator with a manual clock,
 * then end to end: operator API -> cloud -> MQTT -> agent -> simulator bytes -> event -> cloud.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyCommand, pendingCellOpens } from '../../agent/src/commands/index.js';
import { CELL_OPEN_MAX_AGE_MS } from '../../shared/src/protocol.js';
import { NOON, cell, eventBodies, grant, lockerConfig, order, parcel } from '../agent/fixtures.js';
import { signInCourier, simCell, startHarness, waitFor, type Harness } from '../agent/harness.js';
import { testEngines } from '../helpers/cloud-db.js';
import { eventually, openLinkWorld, TODAY, type LinkWorld } from '../link/link-world.js';
import { orderBody, routeBody } from '../cloud/helpers/fleet-fixtures.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function cellOpenEvents(h: Harness): unknown[] {
  return (eventBodies(h.agent.store) as { type: string }[]).filter((e) => e.type === 'cell.open');
}

describe('cell.open at the locker, judged by the locker clock', () => {
  let h: Harness;
  afterEach(async () => h?.stop());

  async function setup(): Promise<Harness> {
    h = await startHarness();
    h.send({ type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M')]) });
    await waitFor(() => h.agent.store.cells.get(2)?.door === 'closed', 'the first door reading');
    return h;
  }

  it('a fresh command opens the door (the unlock reaches the board) and reports opened', async () => {
    await setup();
    h.send({ type: 'cell.open', cellId: 2, reason: 'customer_support', notAfter: NOON + 5 * MINUTE });
    await waitFor(() => cellOpenEvents(h).length > 0, 'the outcome event');
    expect(h.sim.pulses(simCell(2))).toBe(1);
    expect(h.sim.isOpen(simCell(2))).toBe(true);
    expect(cellOpenEvents(h)).toEqual([{ type: 'cell.open', cseq: 2, cellId: 2, outcome: 'opened' }]);
    // The open was ours: the supervisor raises no opened_unexpectedly alarm for it.
    await waitFor(() => h.agent.store.cells.get(2)?.door === 'open', 'the door seen open');
    h.sim.closeDoor(simCell(2));
    await waitFor(() => h.agent.store.cells.get(2)?.door === 'closed', 'the door seen closed');
    expect((eventBodies(h.agent.store) as { type: string }[]).filter((e) => e.type === 'door.alarm')).toEqual([]);
  });

  it('a command that reaches the locker after notAfter is refused and reported; nothing is pulsed', async () => {
    await setup();
    h.send({ type: 'cell.open', cellId: 2, reason: 'maintenance', notAfter: NOON - 1 });
    expect(cellOpenEvents(h)).toEqual([{ type: 'cell.open', cseq: 2, cellId: 2, outcome: 'stale' }]);
    // Rounds of the door supervisor go by; the refused command never turns into a pulse.
    const ticks = async (n: number) => {
      for (let i = 0; i < n; i++) await new Promise<void>((r) => h.agent.locker.doors.once('tick', () => r()));
    };
    await ticks(3);
    expect(h.sim.pulses(simCell(2))).toBe(0);
    expect(h.sim.isOpen(simCell(2))).toBe(false);
  });

  it('a notAfter implausibly far ahead of the locker clock is refused as clock_skew', async () => {
    await setup();
    h.send({ type: 'cell.open', cellId: 2, reason: 'other', notAfter: NOON + CELL_OPEN_MAX_AGE_MS + 1 });
    expect(cellOpenEvents(h)).toEqual([{ type: 'cell.open', cseq: 2, cellId: 2, outcome: 'clock_skew' }]);
    expect(h.sim.pulses(simCell(2))).toBe(0);
  });

  it('a command accepted fresh but waiting at the locker past notAfter (agent down) is refused before the pulse', async () => {
    await setup();
    await h.restart((store) => {
      // Applied while fresh (the link delivered it just before the agent went down)...
      const r = applyCommand(store, { cseq: store.appliedCseq() + 1, at: NOON, type: 'cell.open', cellId: 2, reason: 'inventory', notAfter: NOON + MINUTE });
      expect(r.status).toBe('applied');
      // ...and the agent comes back after notAfter.
      h.clock.advance(MINUTE + 1);
    });
    await waitFor(() => cellOpenEvents(h).length > 0, 'the outcome event');
    expect(cellOpenEvents(h)).toEqual([{ type: 'cell.open', cseq: 2, cellId: 2, outcome: 'stale' }]);
    expect(h.sim.pulses(simCell(2))).toBe(0);
  });

  it('a cell the locker does not have is reported unknown_cell', async () => {
    await setup();
    h.send({ type: 'cell.open', cellId: 9, reason: 'other', notAfter: NOON + MINUTE });
    await waitFor(() => cellOpenEvents(h).length > 0, 'the outcome event');
    expect(cellOpenEvents(h)).toEqual([{ type: 'cell.open', cseq: 2, cellId: 9, outcome: 'unknown_cell' }]);
  });
});

describe('a reserved order whose intent outlived its reservation at the locker', () => {
  let h: Harness;
  afterEach(async () => h?.stop());

  it('is not loadable after loadableUntil; before it, and once the release comes, it is', async () => {
    h = await startHarness();
    h.send(
      { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M')]) },
      { type: 'courier.grant', grant: grant('g1', '111111', NOON + 6 * HOUR) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2 })], { loadableUntil: NOON + MINUTE }) },
    );
    await signInCourier(h, '111111');
    h.clock.advance(MINUTE);
    const refused = await h.post('/api/scan', { barcode: 'B1' });
    expect(refused.error).toEqual({ code: 'not_loadable' });
    expect(refused.view).toEqual({ screen: 'courier', notice: null });
    expect(h.sim.pulses(simCell(1)) + h.sim.pulses(simCell(2))).toBe(0);

    // The cloud's release: no reserved cell, no limit. The parcel goes into a free fitting cell.
    h.send({ type: 'order.upsert', order: order('o1', [parcel('B1')], { loadableUntil: null }) });
    const open = await h.post('/api/scan', { barcode: 'B1' });
    expect(open.view).toMatchObject({ screen: 'load_open', barcode: 'B1' });
  });

  it('an intent without loadableUntil (an older cloud) has no such limit', async () => {
    h = await startHarness();
    h.send(
      { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M')]) },
      { type: 'courier.grant', grant: grant('g1', '111111', NOON + 6 * HOUR) },
      { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2 })]) },
    );
    await signInCourier(h, '111111');
    h.clock.advance(5 * HOUR);
    expect((await h.post('/api/scan', { barcode: 'B1' })).view).toMatchObject({ screen: 'load_open', cellId: 2 });
  });
});

describe.each(testEngines())('operator cell.open through the cloud and the locker link (%s)', (engine) => {
  let w: LinkWorld;
  beforeAll(async () => {
    w = await openLinkWorld(engine, 'embedded');
  });
  afterAll(async () => w?.close());

  async function alerts(lockerId: number): Promise<{ kind: string; cell_id: number | null; detail: unknown }[]> {
    const rows = await w.tdb.db.selectFrom('locker_alerts').select(['kind', 'cell_id', 'detail']).where('locker_id', '=', lockerId).where('kind', '=', 'cell.open').orderBy('id').execute();
    return rows.map((r) => ({ ...r, detail: JSON.parse(r.detail) as unknown }));
  }

  it('a fresh open opens the door at the locker; the outcome comes back as an operator alert', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    await w.converged(rig);
    const before = w.clock.now();
    const a = await w.call('POST', `/operator/lockers/${id}/cells/2/open`, { reason: 'customer_support' }, 'operator');
    expect(a.status).toBe(202);
    expect(a.body).toMatchObject({ lockerId: id, cellId: 2, notAfter: before + 300_000 });
    await eventually(async () => (await alerts(id)).length > 0, 'the cell.open alert');
    expect(await alerts(id)).toEqual([{ kind: 'cell.open', cell_id: 2, detail: { cseq: a.body.cseq, outcome: 'opened' } }]);
    expect(rig.sim.pulses({ bus: 'main', board: 0, lock: 2 })).toBe(1);
    expect(rig.sim.isOpen({ bus: 'main', board: 0, lock: 2 })).toBe(true);
  });

  it('an open accepted and not yet carried out holds off an update restart, like a handover', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    await w.converged(rig);
    const { locker, store } = rig.agent;
    expect(locker.quiet(0)).toEqual({ quiet: true });
    await locker.serviceOpens.stop();
    expect((await w.call('POST', `/operator/lockers/${id}/cells/4/open`, { reason: 'maintenance' }, 'operator')).status).toBe(202);
    await eventually(() => pendingCellOpens(store).length === 1, 'the open queued at the locker');
    expect(locker.quiet(0)).toEqual({ quiet: false, why: 'operation' });
    await locker.serviceOpens.start();
    await eventually(() => rig.sim.isOpen({ bus: 'main', board: 0, lock: 4 }) && pendingCellOpens(store).length === 0, 'the door open and the open done');
    expect(locker.quiet(0)).toEqual({ quiet: false, why: 'door_open' });
  });

  it('an open that queued past its maximum age while the locker was offline is refused there and reported; nothing opens', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    await w.converged(rig);
    rig.proxy.block();
    rig.proxy.cut();
    await eventually(async () => !rig.agent.link!.connected && (await w.locker(id)).online === 0, 'the link to be down');
    const a = await w.call('POST', `/operator/lockers/${id}/cells/3/open`, { reason: 'inventory', maxAgeSeconds: 60 }, 'operator');
    expect(a.status).toBe(202);
    w.clock.advance(61_000);
    rig.proxy.unblock();
    await w.converged(rig);
    await eventually(async () => (await alerts(id)).length > 0, 'the cell.open alert');
    expect(await alerts(id)).toEqual([{ kind: 'cell.open', cell_id: 3, detail: { cseq: a.body.cseq, outcome: 'stale' } }]);
    expect(rig.sim.pulses({ bus: 'main', board: 0, lock: 3 })).toBe(0);
    expect(rig.sim.isOpen({ bus: 'main', board: 0, lock: 3 })).toBe(false);
  });

  it('refuses hostile or wrong requests with the error envelope and records nothing', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    await w.converged(rig);
    const before = await w.locker(id);
    const cases: [unknown, string | undefined, number][] = [
      [{ reason: 'customer_support' }, undefined, 401],
      [{ reason: 'because I said so' }, 'operator', 400],
      [{ reason: 'other', maxAgeSeconds: CELL_OPEN_MAX_AGE_MS / 1000 + 1 }, 'operator', 400],
      [{ reason: 'other', maxAgeSeconds: 0 }, 'operator', 400],
      [{ reason: 'other', maxAgeSeconds: 1.5 }, 'operator', 400],
    ];
    for (const [body, key, status] of cases) {
      const res = await fetch(`${w.cloud.url}/operator/lockers/${id}/cells/2/open`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { 'x-operator-api-key': 'test-operator-key' } : {}) },
        body: JSON.stringify(body),
      });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(Object.keys((await res.json()) as object).sort()).toEqual(['message', 'resultCode']);
    }
    const unknownCell = await w.call('POST', `/operator/lockers/${id}/cells/99/open`, { reason: 'other' }, 'operator');
    expect(unknownCell.status).toBe(400);
    expect(unknownCell.body.resultCode).toBe(3);
    const unknownLocker = await w.call('POST', `/operator/lockers/2147483000/cells/1/open`, { reason: 'other' }, 'operator');
    expect(unknownLocker.status).toBe(400);
    expect((await w.locker(id)).next_cseq).toBe(before.next_cseq);
  });

  it('opens only at lockers whose agent announced cell.open', async () => {
    const id = w.takeLocker();
    // This locker's agent never said hello: it is not known to take cell.open, which an older
    // agent would fail a whole commands message on, stalling the locker's down stream.
    const unannounced = await w.call('POST', `/operator/lockers/${id}/cells/2/open`, { reason: 'other' }, 'operator');
    expect(unannounced.status).toBe(400);
    expect(unannounced.body.message).toMatch(/не объявил cell\.open/);
    const before = await w.locker(id);
    const rig = await w.startAgent(id);
    await w.converged(rig);
    expect((await w.locker(id)).next_cseq).toBe(before.next_cseq);
    expect((await w.call('POST', `/operator/lockers/${id}/cells/2/open`, { reason: 'other' }, 'operator')).status).toBe(202);
  });

  it("a reserved order's intent carries the reservation's end; past it the offline locker will not load the order", async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    const ext = `lapse-${id}`;
    const dimension = { length: 300, width: 200, height: 80 };
    const created = await w.call(
      'PUT',
      '/api/v4/auth/delivery/smartorder/create',
      orderBody(ext, { postamatId: id, dateDelivery: TODAY, parcels: [{ barcode: `${ext}-P1`, dimension }, { barcode: `${ext}-P2`, dimension }] }),
    );
    expect(created.status).toBe(200);
    // A route for tomorrow: the courier's access outlasts today's reservation.
    const tomorrow = new Date(Date.parse(`${TODAY}T00:00:00Z`) + 24 * HOUR).toISOString().slice(0, 10);
    const courier = { externalId: `c-${id}`, email: `c-${id}@example.ru`, phone: `+7999${String(id).slice(-7).padStart(7, '0')}` };
    const body = routeBody(courier, { date: tomorrow, postamatIds: [id], externalId: `route-lapse-${id}` });
    const route = await w.call('PUT', '/api/v1/auth/couriers/courier-with-route', body, 'partner');
    expect(route.status).toBe(200);
    await w.converged(rig);
    const limit = (): number | null | undefined => rig.agent.store.orders.get(rig.agent.store.orders.findByBarcode(`${ext}-P1`)[0]!.order.intent.orderId)?.intent.loadableUntil;
    // End of today in Moscow (UTC+3), plus 1 ms, plus the default 60-minute grace.
    const expected = Date.parse(`${TODAY}T21:00:00Z`) - 1 + 1 + 60 * MINUTE;
    expect(limit()).toBe(expected);

    // One parcel loaded: the upsert the cloud sends for it keeps the limit of the other's reservation.
    const signIn = async () => {
      await rig.post('/api/home');
      await rig.post('/api/choose', { kind: 'courier' });
      const signedIn = await rig.post('/api/code', { kind: 'courier', code: route.body.postamatAccessCode });
      expect(signedIn.view.screen).toBe('courier');
    };
    await signIn();
    const open = await rig.post('/api/scan', { barcode: `${ext}-P1` });
    expect(open.view.screen).toBe('load_open');
    const lock = open.view.screen === 'load_open' ? rig.agent.store.cells.get(open.view.cellId)!.lock : 0;
    rig.sim.closeDoor({ bus: 'main', board: 0, lock });
    await rig.until((x) => x.view.screen === 'courier' && x.view.notice?.kind === 'loaded', 'the load');
    // The cloud answers the load with an upsert that shows the parcel loaded (waited for by its
    // content: counting applied commands would race an answer that came before the count).
    const p1State = (): string | undefined =>
      rig.agent.store.orders.findByBarcode(`${ext}-P1`)[0]?.order.intent.parcels.find((p) => p.barcode === `${ext}-P1`)?.state;
    await eventually(() => p1State() === 'loaded', 'the cloud to answer the load with an upsert');
    await w.converged(rig);
    expect(limit()).toBe(expected);
    const pulsed = rig.sim.pulses({ bus: 'main', board: 0, lock });

    rig.proxy.block();
    rig.proxy.cut();
    await eventually(() => !rig.agent.link!.connected, 'the link to be down');
    w.clock.set(expected);
    await signIn();
    const s = await rig.post('/api/scan', { barcode: `${ext}-P2` });
    expect(s.error).toEqual({ code: 'not_loadable' });
    for (const l of [1, 2, 3, 4]) expect(rig.sim.pulses({ bus: 'main', board: 0, lock: l })).toBe(l === lock ? pulsed : 0);
    rig.proxy.unblock();
    await w.converged(rig);
  });
});
