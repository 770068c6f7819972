/**
 * A technician's inventory at the locker's screen, end to end: the operator API issues a service
 * code, the locker link carries its hash over real MQTT (the embedded broker, and the machine's
 * Mosquitto at MQTT_URL when set; SQLite, and PostgreSQL at DATABASE_URL when set), a real agent
 * on the hardware simulator, its screen's HTTP API, and the marketplace's notification receiver.
 * A power cut in the middle of a load leaves the cell flagged and the order New; the technician
 * opens the cell and records the parcel found: the order is Courier loaded in that cell, the
 * marketplace hears order-status 3 (locker and cell) and the pick-up code once, and the customer's
 * code opens the cell. With the link down the locker records "empty" (the flag leaves) and a
 * barcode of no order (the cell stays flagged), and the cloud applies both once the link is back
 * (the latter as an alert). Wrong, expired and other lockers' service codes open nothing, under
 * the keypad's back-off.
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NotificationDispatcher, createNotificationDispatcher } from '../../cloud/src/notify/dispatcher.js';
import { loadNotifySettings } from '../../cloud/src/notify/settings.js';
import type { Engine } from '../../cloud/src/db/database.js';
import { findCell } from '../../cloud/src/repositories/lockers.js';
import { OrderState } from '../../shared/src/enums.js';
import { requires } from '../helpers/requirements.js';
import { type AgentRig, type BrokerKind, type LinkWorld, eventually, openLinkWorld } from '../link/link-world.js';

const worlds: [Engine, BrokerKind][] = [['sqlite', 'embedded']];
if (requires('mqtt-url')) worlds.push(['sqlite', 'external']);
if (requires('postgres')) worlds.push(['postgres', 'embedded']);

type Delivery = Record<string, unknown> & { id?: string; event_id?: string };

describe.each(worlds)("a technician's inventory on %s over the %s broker", (engine, broker) => {
  const received: Delivery[] = [];
  let receiver: Server;
  let w: LinkWorld;
  let dispatcher: NotificationDispatcher;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Delivery);
        res.writeHead(200).end('ok');
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const address = receiver.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    w = await openLinkWorld(engine, broker, { receiver: { url: `http://127.0.0.1:${port}`, login: 'shop', password: 'shop-secret' } });
    const { deps } = w.cloud;
    dispatcher = createNotificationDispatcher(
      { cdb: deps.cdb, clock: deps.clock, signals: deps.signals, logger: pino({ level: 'silent' }) },
      loadNotifySettings({}, { allowPlainHttp: true, pollSeconds: 1 }),
    );
    await dispatcher.start();
  }, 30_000);

  afterAll(async () => {
    await dispatcher?.stop();
    await w?.close();
    receiver?.close();
  });

  const lockOf = (rig: AgentRig, cellId: number) => ({ bus: 'main', board: 0, lock: rig.agent.store.cells.get(cellId)!.lock });
  const orderOf = async (externalId: string) => (await w.call('GET', `/operator/orders?query=${externalId}`, undefined, 'operator')).body.items[0] as { orderId: string };
  const orderDetail = async (orderId: string) => (await w.call('GET', `/operator/orders/${orderId}`, undefined, 'operator')).body as { state: number };
  const cloudFlags = async (lockerId: number, cellId: number) => (await findCell(w.tdb.db, lockerId, cellId))!.flags;
  const issueCode = (lockerId: number, body: unknown = { minutes: 30, reason: 'inventory after a power cut' }) => w.call('POST', `/operator/lockers/${lockerId}/service-codes`, body, 'operator');
  const inboxOf = async (lockerId: number, type: string) => (await w.inbox(lockerId)).filter((e) => e.type === type).map((e) => JSON.parse(e.body) as Record<string, unknown>);

  /**
   * A courier's load cut by a power cut: the door opened, the courier put the parcel in and shut
   * the door while the locker was dark. The agent comes back with the cell flagged, the order New.
   */
  async function cutLoad(externalId: string): Promise<{ rig: AgentRig; barcode: string; cellId: number; orderId: string }> {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    await w.converged(rig);
    const courier = await w.createRoute(id, `courier-${externalId}`);
    const barcode = await w.createOrder(id, externalId);
    await w.converged(rig);
    await rig.post('/api/choose', { kind: 'courier' });
    await rig.post('/api/code', { kind: 'courier', code: courier });
    const s = await rig.post('/api/scan', { barcode });
    if (s.view.screen !== 'load_open') throw new Error(`no cell opened for ${barcode}: ${JSON.stringify(s)}`);
    const cellId = s.view.cellId;
    const lock = lockOf(rig, cellId);
    await rig.stopAgent();
    rig.sim.closeDoor(lock);
    await rig.startAgent();
    await w.converged(rig);
    expect(rig.agent.store.cells.get(cellId)?.flags).toEqual(['needs_inventory']);
    await eventually(async () => (await cloudFlags(id, cellId)).includes('needs_inventory'), 'the flag at the cloud');
    const { orderId } = await orderOf(externalId);
    expect((await orderDetail(orderId)).state).toBe(OrderState.New);
    return { rig, barcode, cellId, orderId };
  }

  /** The technician types the service code; returns the screen state after it. */
  async function signInService(rig: AgentRig, code: string) {
    await rig.post('/api/home');
    await rig.post('/api/choose', { kind: 'service' });
    return rig.post('/api/code', { kind: 'service', code });
  }

  /** Opens the cell from the service menu; `barcode` is typed while the door is open; the door is shut. */
  async function lookInto(rig: AgentRig, cellId: number, barcode: string | null) {
    const opened = await rig.post('/api/inventory/open', { cellId });
    expect(opened.view).toEqual({ screen: 'inventory', cellId, doorOpen: true, barcode: null });
    expect(rig.sim.isOpen(lockOf(rig, cellId))).toBe(true);
    if (barcode !== null) expect((await rig.post('/api/scan', { barcode })).view).toMatchObject({ screen: 'inventory', barcode });
    // Nothing is recorded while the door is open.
    expect((await rig.post('/api/inventory/record', { outcome: 'empty' })).view).toMatchObject({ screen: 'inventory', doorOpen: true });
    rig.sim.closeDoor(lockOf(rig, cellId));
    await rig.until((s) => s.view.screen === 'inventory' && !s.view.doorOpen, 'the door closed again');
  }

  it('records the parcel found: the order is Courier loaded in that cell, the marketplace told once, the customer picks it up', async () => {
    const externalId = `INV-1-${broker}`;
    const { rig, barcode, cellId, orderId } = await cutLoad(externalId);
    const issued = await issueCode(rig.lockerId);
    expect(issued).toMatchObject({ status: 201, body: { lockerId: rig.lockerId, code: expect.stringMatching(/^\d{8}$/) } });
    const { code, codeId } = issued.body as { code: string; codeId: string };
    await w.converged(rig);
    // The command and the cloud's records carry no code, only its hash.
    const commands = await w.call('GET', `/operator/lockers/${rig.lockerId}/commands`, undefined, 'operator');
    expect(JSON.stringify(commands.body)).not.toContain(code);

    const menu = await signInService(rig, code);
    expect(menu.view).toEqual({ screen: 'service', cells: [{ cellId, flags: ['needs_inventory'] }], notice: null });
    await lookInto(rig, cellId, barcode);
    const done = await rig.post('/api/inventory/record', { outcome: 'found' });
    expect(done.view).toEqual({ screen: 'service', cells: [], notice: { kind: 'inventoried', cellId, outcome: 'found', barcode, placed: true } });
    await rig.post('/api/home');
    await w.converged(rig);

    expect(await inboxOf(rig.lockerId, 'cell.inventoried')).toEqual([{ type: 'cell.inventoried', cellId, outcome: 'found', barcode, orderId, codeId }]);
    expect(await inboxOf(rig.lockerId, 'service.attempt')).toEqual([{ type: 'service.attempt', outcome: 'accepted', codeId }]);
    expect((await orderDetail(orderId)).state).toBe(OrderState.CourierLoaded);
    expect(await cloudFlags(rig.lockerId, cellId)).toEqual([]);
    expect(rig.agent.store.cells.get(cellId)?.flags).toEqual([]);

    const mine = () => received.filter((d) => d.id === externalId);
    await eventually(() => mine().some((d) => 'access_code' in d) && mine().some((d) => d.event_id === '3') && mine().some((d) => 'expire_dt' in d), 'order-status 3, the pick-up code and the deadline at the receiver');
    await eventually(async () => (await w.call('GET', `/operator/orders/${orderId}`, undefined, 'operator')).body.marketplace.every((n: { delivery: string }) => n.delivery === 'delivered'), 'every notification delivered');
    expect(mine().filter((d) => d.event_id === '3')).toEqual([expect.objectContaining({ postamat_id: String(rig.lockerId), cell_id: cellId, barcode })]);
    expect(mine().filter((d) => 'access_code' in d)).toHaveLength(1);
    expect(mine().filter((d) => 'expire_dt' in d)).toHaveLength(1);

    // The customer's code opens the cell.
    const pickup = String(mine().find((d) => 'access_code' in d)!.access_code);
    await rig.post('/api/choose', { kind: 'customer' });
    const taken = await rig.post('/api/code', { kind: 'customer', code: pickup });
    expect(taken.view).toMatchObject({ screen: 'take_open', kind: 'pickup', cells: [cellId] });
    rig.sim.closeDoor(lockOf(rig, cellId));
    await eventually(async () => (await orderDetail(orderId)).state === OrderState.ClientReceived, 'the order Client received');

    const audit = await w.call('GET', `/operator/audit?action=service.code&lockerId=${rig.lockerId}`, undefined, 'operator');
    expect(audit.body.items).toMatchObject([{ action: 'service.code', operator: 'ops', reason: 'inventory after a power cut', target: `locker:${rig.lockerId}`, detail: { codeId } }]);
    expect(JSON.stringify(audit.body)).not.toContain(code);
  }, 90_000);

  it('offline: a barcode of no order keeps the cell flagged, "empty" clears it; the cloud hears both once the link is back', async () => {
    const { rig, cellId, orderId } = await cutLoad(`INV-2-${broker}`);
    const { code } = (await issueCode(rig.lockerId)).body as { code: string };
    await w.converged(rig);
    // The technician works with the link down: the locker records, the cloud hears it later.
    rig.proxy.block();
    rig.proxy.cut();
    await eventually(async () => !rig.agent.link!.connected && (await w.locker(rig.lockerId)).online === 0, 'the link down on both sides');
    await signInService(rig, code);
    await lookInto(rig, cellId, 'NOT-AN-ORDER-1');
    const unplaced = await rig.post('/api/inventory/record', { outcome: 'found' });
    expect(unplaced.view).toEqual({ screen: 'service', cells: [{ cellId, flags: ['needs_inventory'] }], notice: { kind: 'inventoried', cellId, outcome: 'found', barcode: 'NOT-AN-ORDER-1', placed: false } });
    await lookInto(rig, cellId, null);
    expect((await rig.post('/api/inventory/record', { outcome: 'found' })).error).toEqual({ code: 'no_barcode' });
    const empty = await rig.post('/api/inventory/record', { outcome: 'empty' });
    expect(empty.view).toEqual({ screen: 'service', cells: [], notice: { kind: 'inventoried', cellId, outcome: 'empty', barcode: null, placed: false } });
    await rig.post('/api/home');
    expect(await inboxOf(rig.lockerId, 'cell.inventoried')).toEqual([]);
    expect(await cloudFlags(rig.lockerId, cellId)).toEqual(['needs_inventory']);

    rig.proxy.unblock();
    await w.converged(rig);
    expect((await inboxOf(rig.lockerId, 'cell.inventoried')).map((e) => [e.outcome, e.barcode, e.orderId])).toEqual([
      ['found', 'NOT-AN-ORDER-1', null],
      ['empty', null, null],
    ]);
    expect(await cloudFlags(rig.lockerId, cellId)).toEqual([]);
    expect(rig.agent.store.cells.get(cellId)?.flags).toEqual([]);
    expect((await orderDetail(orderId)).state).toBe(OrderState.New);
    const alerts = await w.call('GET', `/operator/lockers/${rig.lockerId}/alerts`, undefined, 'operator');
    expect(alerts.body.items.filter((a: { kind: string }) => a.kind === 'inventory.unplaced_parcel')).toMatchObject([{ cellId, severity: 'warning', detail: { barcode: 'NOT-AN-ORDER-1' } }]);
  }, 90_000);

  it('refuses wrong codes under the back-off, an expired code, another locker\'s code, an unflagged cell, and an agent that has not announced the command', async () => {
    const id = w.takeLocker();
    const other = w.takeLocker();
    const rig = await w.startAgent(id);
    const otherRig = await w.startAgent(other);
    await w.converged(rig);
    await w.converged(otherRig);
    const { code } = (await issueCode(id)).body as { code: string };
    const { code: otherCode } = (await issueCode(other)).body as { code: string };
    await w.converged(rig);
    await w.converged(otherRig);

    // Another locker's code is a wrong code here.
    expect((await signInService(rig, otherCode)).error).toMatchObject({ code: 'wrong_code' });
    // Three wrong codes are free, the fourth costs a wait; then even the right code is not checked.
    for (const wrong of ['11111111', '22222222']) expect((await rig.post('/api/code', { kind: 'service', code: wrong })).error).toMatchObject({ code: 'wrong_code', waitMs: 0 });
    const fourth = await rig.post('/api/code', { kind: 'service', code: '33333333' });
    expect(fourth.error).toMatchObject({ code: 'wrong_code' });
    expect(fourth.waitMs.service).toBeGreaterThan(0);
    expect(fourth.waitMs.courier).toBe(0);
    const waiting = await rig.post('/api/code', { kind: 'service', code });
    expect(waiting.error).toMatchObject({ code: 'wait' });
    expect(waiting.view.screen).toBe('code');
    // After the wait, the right code opens the menu (no flagged cell here).
    w.clock.advance(fourth.waitMs.service);
    expect((await rig.post('/api/code', { kind: 'service', code })).view).toEqual({ screen: 'service', cells: [], notice: null });
    // A cell that is not flagged is not opened.
    expect((await rig.post('/api/inventory/open', { cellId: 1 })).error).toEqual({ code: 'not_flagged' });
    expect(rig.sim.isOpen({ bus: 'main', board: 0, lock: 1 })).toBe(false);
    await rig.post('/api/home');

    // Past its end the code is refused as expired.
    w.clock.advance(31 * 60_000);
    expect((await signInService(otherRig, otherCode)).error).toEqual({ code: 'code_expired' });
    await w.converged(rig);
    await w.converged(otherRig);
    expect((await inboxOf(id, 'service.attempt')).map((e) => e.outcome)).toEqual(['wrong', 'wrong', 'wrong', 'wrong', 'accepted']);
    expect((await inboxOf(other, 'service.attempt')).map((e) => e.outcome)).toEqual(['expired']);

    // The API: bounds, a viewer, an agent that does not know the command.
    expect(await issueCode(id, { minutes: 100_000 })).toMatchObject({ status: 400, body: { resultCode: 3 } });
    await w.tdb.db.updateTable('lockers').set({ command_types: JSON.stringify(['cell.open']) }).where('id', '=', id).execute();
    expect(await issueCode(id)).toMatchObject({ status: 400, body: { resultCode: 3 } });
    expect((await w.call('GET', `/operator/audit?action=service.code&lockerId=${id}`, undefined, 'operator')).body.total).toBe(1);
  }, 90_000);
});
