/**
 * Opening an order's cells for the customer, end to end: the operator API, the locker link over
 * real MQTT (the embedded broker, and the machine's Mosquitto at MQTT_URL when set; SQLite, and
 * PostgreSQL at DATABASE_URL when set), a real agent
 * on the hardware simulator, and the marketplace's notification receiver. The door opens once,
 * the customer takes the parcel and closes it: the order is Client received, the marketplace gets
 * order-status 2 once, no door alarm is raised, and the audit keeps the operator's note. A lost
 * ack (the cloud sends the command again) and a restart of the agent open nothing twice; a jammed
 * door leaves the order as it was.
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NotificationDispatcher, createNotificationDispatcher } from '../../cloud/src/notify/dispatcher.js';
import { loadNotifySettings } from '../../cloud/src/notify/settings.js';
import type { Engine } from '../../cloud/src/db/database.js';
import { markHandoverStarted, pendingHandovers } from '../../agent/src/commands/index.js';
import { OrderState } from '../../shared/src/enums.js';
import { requires } from '../helpers/requirements.js';
import { type AgentRig, type BrokerKind, type LinkWorld, eventually, openLinkWorld } from '../link/link-world.js';

// SQLite with the embedded broker always; the machine's Mosquitto and PostgreSQL too when named
// (MQTT_URL, DATABASE_URL: each skip is printed, and fails under CI).
const worlds: [Engine, BrokerKind][] = [['sqlite', 'embedded']];
if (requires('mqtt-url')) worlds.push(['sqlite', 'external']);
if (requires('postgres')) worlds.push(['postgres', 'embedded']);

interface Delivery {
  id?: string;
  event_id?: string;
}

describe.each(worlds)('opening the cell for the customer on %s over the %s broker', (engine, broker) => {
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

  /** A loaded order at a fresh locker: its id, the cell and the lock of that cell. */
  async function loadedOrder(externalId: string): Promise<{ rig: AgentRig; orderId: string; cellId: number; lock: number }> {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    await w.converged(rig);
    const code = await w.createRoute(id, `courier-${externalId}`);
    const barcode = await w.createOrder(id, externalId);
    await w.converged(rig);
    await rig.post('/api/home');
    await rig.post('/api/choose', { kind: 'courier' });
    await rig.post('/api/code', { kind: 'courier', code });
    const s = await rig.post('/api/scan', { barcode });
    if (s.view.screen !== 'load_open') throw new Error(`no cell opened for ${barcode}: ${JSON.stringify(s)}`);
    const cellId = s.view.cellId;
    const lock = rig.agent.store.cells.get(cellId)!.lock;
    rig.sim.closeDoor({ bus: 'main', board: 0, lock });
    await rig.until((x) => x.view.screen === 'courier' && x.view.notice?.kind === 'loaded', `load of ${barcode}`);
    await rig.post('/api/home');
    await w.converged(rig);
    const found = await w.call('GET', `/operator/orders?query=${externalId}`, undefined, 'operator');
    const orderId = (found.body as { items: { orderId: string }[] }).items[0]!.orderId;
    expect(await summaryState(orderId)).toBe(OrderState.CourierLoaded);
    return { rig, orderId, cellId, lock };
  }

  const summaryState = async (orderId: string): Promise<number> => (await w.call('GET', `/operator/orders/${orderId}`, undefined, 'operator')).body.state as number;
  const handOver = (orderId: string, note: string) => w.call('POST', `/operator/orders/${orderId}/handover`, { note }, 'operator');
  const handoverEvents = async (lockerId: number) => (await w.inbox(lockerId)).filter((e) => e.type === 'order.handover').map((e) => JSON.parse(e.body) as { outcome: string; opened: number[] });
  const received_ = async (lockerId: number) => (await w.inbox(lockerId)).filter((e) => e.type === 'parcel.received');
  const doorAlarms = async (lockerId: number) => (await w.inbox(lockerId)).filter((e) => e.type === 'door.alarm').map((e) => (JSON.parse(e.body) as { kind: string }).kind);

  it('opens the cell once; the door closed empty, the order is Client received and the marketplace told once; the audit keeps the note', async () => {
    const { rig, orderId, cellId, lock } = await loadedOrder(`HAND-1-${broker}`);
    const cell = { bus: 'main', board: 0, lock };
    // The agent's ack of the command is lost: the cloud sends the command again later.
    rig.drop = (m) => m.type === 'ack';
    const answer = await handOver(orderId, 'customer at the locker, code refused; checked by phone');
    expect(answer).toMatchObject({ status: 202, body: { orderId, lockerId: rig.lockerId, state: 3, rule: 'HO1' } });
    await eventually(() => rig.sim.isOpen(cell), 'the door to open');
    // The parcel counted as received at the confirmed open: the cloud's upsert revoking the code follows (its ack lost too).
    await eventually(() => rig.applied.some((a) => a.cseq > answer.body.cseq), 'the upsert after the parcel.received');
    rig.drop = null;
    w.clock.advance(30_000);
    await w.link.pollOnce();
    await eventually(() => rig.applied.some((a) => a.cseq === answer.body.cseq && a.status === 'duplicate'), 'the command sent again');
    // The customer takes the parcel and closes the door.
    rig.sim.closeDoor(cell);
    await eventually(async () => (await summaryState(orderId)) === OrderState.ClientReceived, 'the order to be Client received');
    await w.converged(rig);
    expect(rig.applied.filter((a) => a.cseq === answer.body.cseq).map((a) => a.status)).toEqual(['applied', 'duplicate']);
    expect(await handoverEvents(rig.lockerId)).toMatchObject([{ outcome: 'opened', opened: [cellId] }]);
    expect(await received_(rig.lockerId)).toHaveLength(1);
    expect(rig.sim.isOpen(cell)).toBe(false);

    const told = () => received.filter((d) => d.id === `HAND-1-${broker}` && d.event_id === '2');
    await eventually(() => told().length > 0, 'order-status 2 at the receiver');
    await eventually(async () => (await w.call('GET', `/operator/orders/${orderId}`, undefined, 'operator')).body.marketplace.every((n: { delivery: string }) => n.delivery === 'delivered'), 'every notification delivered');
    expect(told()).toHaveLength(1);

    // Long after the close, the door raised no alarm: it was opened by the locker and closed.
    w.clock.advance(2 * 3_600_000);
    const ticks = () => new Promise<void>((resolve) => rig.agent.locker.doors.once('tick', () => resolve()));
    await ticks();
    await ticks();
    await w.converged(rig);
    expect(await doorAlarms(rig.lockerId)).toEqual([]);

    // The order's timeline shows the command and what the locker said of it.
    const timeline = (await w.call('GET', `/operator/orders/${orderId}/timeline`, undefined, 'operator')).body as { entries: { kind: string }[] };
    const about = (kind: string) => timeline.entries.filter((e) => e.kind === kind && JSON.stringify(e).includes('order.handover'));
    expect(about('command')).toHaveLength(1);
    expect(about('locker_event')).toHaveLength(1);

    const audit = await w.call('GET', `/operator/audit?orderId=${orderId}`, undefined, 'operator');
    expect(audit.body.items).toMatchObject([
      { action: 'order.handover', operator: 'ops', reason: 'customer_handover', note: 'customer at the locker, code refused; checked by phone', lockerId: rig.lockerId, detail: { rule: 'HO1', cseq: answer.body.cseq } },
    ]);
  }, 60_000);

  it('carries out a handover applied before a restart once, after the restart', async () => {
    const { rig, orderId, lock } = await loadedOrder(`HAND-2-${broker}`);
    const cell = { bus: 'main', board: 0, lock };
    // Applied, not yet carried out, when the agent stops.
    await rig.agent.locker.handovers.stop();
    const first = await handOver(orderId, 'first try');
    expect(first.status).toBe(202);
    await eventually(() => pendingHandovers(rig.agent.store).length === 1, 'the handover queued at the locker');
    await rig.stopAgent();
    await rig.startAgent();
    await eventually(() => rig.sim.isOpen(cell), 'the door to open after the restart');
    rig.sim.closeDoor(cell);
    await eventually(async () => (await summaryState(orderId)) === OrderState.ClientReceived, 'the order to be Client received');
    await w.converged(rig);
    expect((await handoverEvents(rig.lockerId)).map((e) => e.outcome)).toEqual(['opened']);
    expect(await received_(rig.lockerId)).toHaveLength(1);
    expect(pendingHandovers(rig.agent.store)).toEqual([]);
  }, 60_000);

  it('opens nothing again for a handover the agent had started when it stopped, and says so', async () => {
    const { rig, orderId, lock } = await loadedOrder(`HAND-3-${broker}`);
    const cell = { bus: 'main', board: 0, lock };
    const pulsesBefore = rig.sim.pulses(cell);
    await rig.agent.locker.handovers.stop();
    expect((await handOver(orderId, 'cut off')).status).toBe(202);
    await eventually(() => pendingHandovers(rig.agent.store).length === 1, 'the handover queued at the locker');
    // As if the agent died right after marking it started, before the pulse.
    const { store } = rig.agent;
    store.tx(() => markHandoverStarted(store, pendingHandovers(store)[0]!.cseq));
    await rig.stopAgent();
    await rig.startAgent();
    await eventually(async () => (await handoverEvents(rig.lockerId)).length === 1, 'the handover outcome at the cloud');
    expect((await handoverEvents(rig.lockerId)).map((e) => e.outcome)).toEqual(['interrupted']);
    expect(rig.sim.pulses(cell) - pulsesBefore).toBe(0);
    expect(await summaryState(orderId)).toBe(OrderState.CourierLoaded);
    const alerts = await w.call('GET', `/operator/lockers/${rig.lockerId}/alerts`, undefined, 'operator');
    expect(alerts.body.items).toMatchObject([{ kind: 'order.handover', severity: 'warning', detail: { outcome: 'interrupted' } }]);
  }, 60_000);

  it('a jammed door: door_fault, the order stays Courier loaded with nothing recorded taken, the cell flagged faulty', async () => {
    const { rig, orderId, cellId, lock } = await loadedOrder(`HAND-6-${broker}`);
    rig.sim.setFault({ kind: 'jammed', bus: 'main', board: 0, lock });
    expect((await handOver(orderId, 'door stuck?')).status).toBe(202);
    await eventually(async () => (await handoverEvents(rig.lockerId)).length === 1, 'the handover outcome at the cloud');
    rig.sim.clearFaults();
    await w.converged(rig);
    expect(await handoverEvents(rig.lockerId)).toMatchObject([{ outcome: 'door_fault', opened: [], failed: [cellId] }]);
    expect(await received_(rig.lockerId)).toEqual([]);
    expect(await summaryState(orderId)).toBe(OrderState.CourierLoaded);
    const flags = (await w.inbox(rig.lockerId)).filter((e) => e.type === 'cell.flags').map((e) => JSON.parse(e.body) as { cellId: number; reason: string });
    expect(flags).toMatchObject([{ cellId, reason: 'door_jammed' }]);
  }, 60_000);

  it('refuses an offline locker (409, 252), an agent that has not announced the command (3), an order not in the locker (252) and an unknown one (250)', async () => {
    const { rig, orderId } = await loadedOrder(`HAND-4-${broker}`);
    await w.tdb.db.updateTable('lockers').set({ command_types: JSON.stringify(['cell.open']) }).where('id', '=', rig.lockerId).execute();
    expect(await handOver(orderId, 'x')).toMatchObject({ status: 400, body: { resultCode: 3 } });
    await rig.stopAgent();
    await eventually(async () => (await w.locker(rig.lockerId)).online === 0, 'the locker offline');
    await w.tdb.db.updateTable('lockers').set({ command_types: JSON.stringify(['order.handover']) }).where('id', '=', rig.lockerId).execute();
    expect(await handOver(orderId, 'x')).toMatchObject({ status: 409, body: { resultCode: 252 } });
    await w.createOrder(rig.lockerId, `HAND-5-${broker}`);
    const fresh = (await w.call('GET', `/operator/orders?query=HAND-5-${broker}`, undefined, 'operator')).body.items[0].orderId as string;
    expect(await handOver(fresh, 'x')).toMatchObject({ status: 400, body: { resultCode: 252 } });
    expect(await handOver('00000000-0000-4000-8000-0000000000ff', 'x')).toMatchObject({ body: { resultCode: 250 } });
    expect(await w.call('POST', `/operator/orders/${orderId}/handover`, {}, 'operator')).toMatchObject({ status: 400, body: { resultCode: 3 } });
    expect((await w.call('GET', `/operator/audit?action=order.handover&lockerId=${rig.lockerId}`, undefined, 'operator')).body.total).toBe(0);
  }, 60_000);
});
