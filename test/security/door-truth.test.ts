/**
 * The locker tells the truth about its doors when the lock board goes silent during an unlock:
 * an answer that is lost is not a failed unlock. The agent runs against the simulator (real bytes
 * over TCP); the board's silence is the simulator's `no-reply` fault. Door polls are slowed down
 * so that only the operation under test talks to the board; rounds are then run by hand.
 */
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventBody } from '../../shared/src/protocol.js';
import { NOON, cell, eventBodies, grant, lockerConfig, order, parcel, pickupHash } from '../agent/fixtures.js';
import { signInCourier, simCell, startHarness, type Harness } from '../agent/harness.js';
import { testEngines } from '../helpers/cloud-db.js';
import { chromiumPath, requires } from '../helpers/requirements.js';
import { KEYS, startFactsCloud } from '../locker-events/facts-cloud.js';

const HOUR = 3_600_000;

function eventsOf(h: Harness, type: string): unknown[] {
  return (eventBodies(h.agent.store) as { type: string }[]).filter((e) => e.type === type);
}

async function setup(): Promise<Harness> {
  // Harness buses: frameTimeoutMs 60, retries 1 (two frames per read), confirmReads 2, openAttempts 2.
  const h = await startHarness({ config: { doors: { pollMs: 60_000, leftOpenMs: 60_000 } } });
  h.send(
    { type: 'locker.config', config: lockerConfig([cell(1, 1, 'S'), cell(2, 2, 'M'), cell(3, 3, 'M')]) },
    { type: 'courier.grant', grant: grant('g1', '111111', NOON + 6 * HOUR) },
    { type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2 })]) },
  );
  return h;
}

/** The cloud's side: the locker's events, applied as its link does, become the operator's alerts. */
async function expectOperatorAlerted(events: EventBody[]): Promise<void> {
  for (const engine of testEngines()) {
    const fc = await startFactsCloud(engine);
    try {
      for (const body of events) await fc.fact(1, body);
      const res = await fc.call('GET', '/operator/alerts?postamatId=1&severity=warning', { operatorKey: KEYS.operator });
      const alerts = (res.body as { alerts: { kind: string; cellId: number | null; detail: Record<string, unknown> }[] }).alerts;
      // Besides them: the board going offline (a warning without a cell).
      expect(alerts.filter((a) => a.cellId === 2).map((a) => [a.kind, a.detail.kind ?? a.detail.reason]), engine).toEqual([
        ['door.alarm', 'unconfirmed'],
        ['cell.flags', 'door_unconfirmed'],
      ]);
      // The cell is out of allocation in the cloud too.
      const row = await fc.db.db.selectFrom('cells').selectAll().where('locker_id', '=', 1).where('id', '=', 2).executeTakeFirstOrThrow();
      expect(Boolean(row.needs_inventory), engine).toBe(true);
    } finally {
      await fc.stop();
    }
  }
}

describe('door truth with a silent lock board', () => {
  let h: Harness;
  afterEach(async () => h?.stop());

  it('a load whose board stays silent: the courier is told the door may have opened, the cell is set aside, the operator alerted', async () => {
    h = await setup();
    await signInCourier(h, '111111');
    h.sim.setFault({ kind: 'no-reply', bus: 'main', board: 0 });
    const s = await h.post('/api/scan', { barcode: 'B1' });
    // The unlock went out and the door did swing open: "did not open" would be a lie.
    expect(h.sim.isOpen(simCell(2))).toBe(true);
    expect(s.error).toEqual({ code: 'door_unknown', cells: [2] });
    expect(s.view).toEqual({ screen: 'courier', notice: null });
    // No other door opened for the parcel while nobody knows whether it went into cell 2.
    expect(h.sim.pulses(simCell(1)) + h.sim.pulses(simCell(3))).toBe(0);
    expect(h.agent.store.cells.get(2)?.flags).toEqual(['needs_inventory']);
    expect(h.agent.store.parcels.get('o1', 'B1')).toBeNull();
    expect(h.agent.store.journal.all()).toEqual([]);
    expect(eventsOf(h, 'cell.flags')).toEqual([{ type: 'cell.flags', cellId: 2, flags: ['needs_inventory'], reason: 'door_unconfirmed' }]);
    expect(eventsOf(h, 'door.alarm')).toEqual([{ type: 'door.alarm', cellId: 2, kind: 'unconfirmed' }]);
    await expectOperatorAlerted(eventBodies(h.agent.store) as EventBody[]);

    // The board answers again: the open door is ours (no opened_unexpectedly); its close is reported.
    h.sim.clearFaults();
    await h.agent.locker.doors.poll();
    expect(eventsOf(h, 'door.alarm')).toEqual([{ type: 'door.alarm', cellId: 2, kind: 'unconfirmed' }]);
    h.sim.closeDoor(simCell(2));
    await h.agent.locker.doors.poll();
    expect(eventsOf(h, 'door.alarm')).toEqual([
      { type: 'door.alarm', cellId: 2, kind: 'unconfirmed' },
      { type: 'door.alarm', cellId: 2, kind: 'closed' },
    ]);
    // No fact was invented; the parcel can still be loaded, into a cell that is not set aside.
    expect(eventsOf(h, 'parcel.loaded')).toEqual([]);
    const again = await h.post('/api/scan', { barcode: 'B1' });
    expect(again.view).toMatchObject({ screen: 'load_open' });
    expect(again.view.screen === 'load_open' && again.view.cellId).not.toBe(2);
  });

  it('an unlock whose answer is lost but whose door then reads open goes on as an open', async () => {
    h = await setup();
    await signInCourier(h, '111111');
    // The first confirmation read (two frames) goes unanswered; the re-read gets an answer.
    h.sim.setFault({ kind: 'no-reply', bus: 'main', board: 0, count: 2 });
    const s = await h.post('/api/scan', { barcode: 'B1' });
    expect(s.error).toBeNull();
    expect(s.view).toMatchObject({ screen: 'load_open', cellId: 2, barcode: 'B1', failedCells: [] });
    expect(h.agent.store.cells.get(2)?.flags).toEqual([]);
    expect(h.agent.store.journal.all()).toMatchObject([{ kind: 'load', cellId: 2, stage: 'open' }]);
    h.sim.closeDoor(simCell(2));
    await h.agent.locker.doors.poll();
    const done = await h.until((x) => x.view.screen === 'courier' && x.view.notice !== null, 'the load to commit');
    expect(done.view).toEqual({ screen: 'courier', notice: { kind: 'loaded', cellId: 2, barcode: 'B1' } });
    expect(h.agent.store.parcels.get('o1', 'B1')).toMatchObject({ cellId: 2, state: 'in_cell' });
    expect(eventsOf(h, 'door.alarm')).toEqual([]);
    expect(eventsOf(h, 'cell.flags')).toEqual([]);
  });

  it('an unanswered unlock whose door then reads closed is a real failure: pulsed again, then jammed', async () => {
    h = await setup();
    await signInCourier(h, '111111');
    h.sim.setFault({ kind: 'jammed', bus: 'main', board: 0, lock: 2 });
    h.sim.setFault({ kind: 'no-reply', bus: 'main', board: 0, count: 2 });
    const s = await h.post('/api/scan', { barcode: 'B1' });
    expect(h.sim.pulses(simCell(2))).toBe(2);
    expect(h.agent.store.cells.get(2)?.flags).toEqual(['faulty']);
    // Today's door_fault path: the next fitting cell opens instead.
    expect(s.view).toMatchObject({ screen: 'load_open', cellId: 1, failedCells: [2] });
    expect(eventsOf(h, 'door.alarm')).toEqual([]);
  });

  it('a pick-up whose board stays silent: the parcel stays recorded in its cell, the cell is set aside, the code still opens it', async () => {
    h = await setup();
    await signInCourier(h, '111111');
    const s = await h.post('/api/scan', { barcode: 'B1' });
    expect(s.view).toMatchObject({ screen: 'load_open', cellId: 2 });
    h.sim.closeDoor(simCell(2));
    await h.agent.locker.doors.poll();
    await h.until((x) => x.view.screen === 'courier' && x.view.notice !== null, 'the load');
    await h.post('/api/home');
    h.send({ type: 'order.upsert', order: order('o1', [parcel('B1', { cellId: 2, state: 'loaded' })], { state: 3, pickupCodeHash: pickupHash('424242') }) });

    h.sim.setFault({ kind: 'no-reply', bus: 'main', board: 0 });
    await h.post('/api/choose', { kind: 'customer' });
    const pick = await h.post('/api/code', { kind: 'customer', code: '424242' });
    expect(h.sim.isOpen(simCell(2))).toBe(true);
    expect(pick.error).toEqual({ code: 'door_unknown', cells: [2] });
    expect(h.agent.store.parcels.get('o1', 'B1')).toMatchObject({ cellId: 2, state: 'in_cell' });
    expect(eventsOf(h, 'parcel.received')).toEqual([]);
    expect(h.agent.store.cells.get(2)?.flags).toEqual(['needs_inventory']);
    expect(eventsOf(h, 'door.alarm')).toEqual([{ type: 'door.alarm', cellId: 2, kind: 'unconfirmed' }]);

    // The board answers again: the customer's code still opens the cell, and the parcel is handed out.
    h.sim.clearFaults();
    h.sim.closeDoor(simCell(2));
    await h.agent.locker.doors.poll();
    await h.post('/api/choose', { kind: 'customer' });
    const retry = await h.post('/api/code', { kind: 'customer', code: '424242' });
    expect(retry.view).toMatchObject({ screen: 'take_open', kind: 'pickup', cells: [2] });
    expect(h.agent.store.parcels.get('o1', 'B1')).toMatchObject({ state: 'received' });
  });
});

describe.runIf(requires('chromium'))('the locker page says what it knows about the door (Chromium)', () => {
  it('in Russian and in English: the door may have opened, the cell is set aside, call support', async () => {
    const h = await setup();
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    try {
      await signInCourier(h, '111111');
      h.sim.setFault({ kind: 'no-reply', bus: 'main', board: 0 });
      expect((await h.post('/api/scan', { barcode: 'B1' })).error).toEqual({ code: 'door_unknown', cells: [2] });
      const page = await browser.newPage();
      await page.goto(h.agent.screenUrl);
      await h.post('/api/lang', { lang: 'ru' });
      const ru = await page.waitForSelector('[data-error="door_unknown"]:has-text("могла открыться")');
      expect(await ru.textContent()).toBe('Дверца ячейки 2 могла открыться: замок не ответил. Ячейка отложена для проверки. Позвоните в поддержку');
      await h.post('/api/lang', { lang: 'en' });
      const en = await page.waitForSelector('[data-error="door_unknown"]:has-text("may have opened")');
      expect(await en.textContent()).toBe('The door of cell 2 may have opened: the lock did not answer. The cell is set aside for inspection. Please call support');
    } finally {
      await browser.close();
      await h.stop();
    }
  });
});
