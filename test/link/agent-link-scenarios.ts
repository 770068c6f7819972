/**
 * The locker link end to end: the agent (store, flows, simulator, screen API) and the cloud (API,
 * domain, database) through real MQTT. Shared by the suites for each database engine and broker.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OrderState } from '../../shared/src/enums.js';
import { PROTOCOL_VERSION, type Command, type LockerEvent, type UpMessage } from '../../shared/src/protocol.js';
import { topics } from '../../shared/src/topics.js';
import { connectClient } from '../broker/mqtt-client.js';
import { type AgentRig, CLOUD_MQTT, type LinkWorld, TODAY, eventually } from './link-world.js';

const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

/** A signed-in courier loads a parcel: scan, the door opens, the simulator closes it. Returns the cell. */
async function load(rig: AgentRig, barcode: string): Promise<number> {
  const s = await rig.post('/api/scan', { barcode });
  if (s.view.screen !== 'load_open') throw new Error(`no cell opened for ${barcode}: ${JSON.stringify(s)}`);
  const cellId = s.view.cellId;
  rig.sim.closeDoor({ bus: 'main', board: 0, lock: rig.agent.store.cells.get(cellId)!.lock });
  await rig.until((x) => x.view.screen === 'courier' && x.view.notice?.kind === 'loaded' && x.view.notice.barcode === barcode, `load of ${barcode}`);
  return cellId;
}

/** The courier signs in (one `code.attempt` event) and stays on the courier screen. */
async function signIn(rig: AgentRig, code: string): Promise<void> {
  await rig.post('/api/home');
  await rig.post('/api/choose', { kind: 'courier' });
  const s = await rig.post('/api/code', { kind: 'courier', code });
  if (s.view.screen !== 'courier') throw new Error(`courier not signed in: ${JSON.stringify(s)}`);
}

/** Events of the agent's outbox as the cloud stores them in its inbox. */
function asInbox(events: LockerEvent[]): { dseq: number; type: string; body: unknown }[] {
  return events.map(({ dseq, at: _at, ...body }) => ({ dseq, type: body.type, body }));
}

async function cloudInbox(w: LinkWorld, lockerId: number): Promise<{ dseq: number; type: string; body: unknown }[]> {
  return (await w.inbox(lockerId)).map((e) => ({ dseq: e.dseq, type: e.type, body: JSON.parse(e.body) as unknown }));
}

/** A well-formed command the cloud never wrote. */
function forged(cseq: number, orderId: string): Command {
  return {
    cseq,
    at: 0,
    type: 'order.upsert',
    order: {
      orderId, externalId: orderId, number: null, marketplaceId: 'shop-a', state: 0, dateDelivery: TODAY, holdUntil: null, pickupCodeHash: null,
      parcels: [{ barcode: `${orderId}-P1`, additionalBarcodes: [], dimension: null, state: 'pending', cellId: null }],
    },
  };
}

const eventsOf = (messages: UpMessage[]) => messages.flatMap((m) => (m.type === 'events' ? [m.items] : []));

/** cseqs applied (not skipped) over every life of the agent, in order. */
function appliedCseqs(rig: AgentRig): number[] {
  return rig.applied.filter((a) => a.status === 'applied').map((a) => a.cseq);
}

export function agentLinkScenarios(open: () => Promise<LinkWorld>): void {
  let w: LinkWorld;
  beforeAll(async () => {
    w = await open();
  });
  afterAll(async () => w?.close());

  it('converges: a reservation made through the API reaches the agent, a load at the agent changes the order once', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    await w.converged(rig);
    expect(rig.agent.store.cells.all().map((c) => c.id)).toEqual([1, 2, 3, 4]);

    const barcode = await w.createOrder(id, `conv-${id}`);
    const code = await w.createRoute(id, `courier-${id}`);
    await w.converged(rig);
    const [reserved] = rig.agent.store.orders.findByBarcode(barcode);
    expect(reserved?.order.intent.state).toBe(OrderState.New);
    expect(reserved?.parcel.cellId).not.toBeNull();

    await signIn(rig, code);
    const cellId = await load(rig, barcode);
    await w.converged(rig);
    expect(await w.orderState(barcode, code)).toBe(OrderState.CourierLoaded);
    const loads = (await w.inbox(id)).filter((e) => e.type === 'parcel.loaded');
    expect(loads).toHaveLength(1);
    expect(JSON.parse(loads[0]!.body)).toMatchObject({ barcode, cellId });
    // The cloud's answer (Courier loaded, pick-up code) came back down.
    const [after] = rig.agent.store.orders.findByBarcode(barcode);
    expect(after?.order.intent.state).toBe(OrderState.CourierLoaded);
    expect(after?.order.intent.pickupCodeHash).not.toBeNull();
    expect(cellId).toBe(reserved?.parcel.cellId);
    expect(appliedCseqs(rig)).toEqual(range(1, rig.agent.store.appliedCseq()));
  });

  it('keeps both streams across a cut link: what was recorded meanwhile arrives once, in order, in bounded batches', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    const first = await w.createOrder(id, `cut-a-${id}`);
    const code = await w.createRoute(id, `courier-cut-${id}`);
    await w.converged(rig);
    const connBefore = rig.agent.link!.conn;
    expect((await rig.until(() => true, 'the screen')).offline).toBe(false);

    rig.proxy.block();
    rig.proxy.cut();
    await eventually(async () => !rig.agent.link!.connected && (await w.locker(id)).online === 0, 'the link to be down on both sides');
    // Staff see a mark on the screen; the courier below is served all the same.
    await rig.until((s) => s.offline, 'the screen to mark the locker offline');

    // Offline: the locker serves the courier with what it knows, the cloud takes new orders.
    await signIn(rig, code);
    await load(rig, first);
    for (let i = 0; i < 4; i++) await signIn(rig, code);
    const second = await w.createOrder(id, `cut-b-${id}`);
    const third = await w.createOrder(id, `cut-c-${id}`);
    expect(rig.agent.store.orders.findByBarcode(second)).toEqual([]);
    const pending = rig.agent.store.outbox.lastDseq() - rig.agent.store.ackedDseq();
    expect(pending).toBe(6);

    rig.proxy.unblock();
    const row = await w.converged(rig);
    await rig.until((s) => !s.offline, 'the offline mark to go');
    expect(rig.agent.link!.conn).toBeGreaterThan(connBefore);
    expect(await cloudInbox(w, id)).toEqual(asInbox(rig.agent.store.eventsAfter(0, 1_000)));
    expect(appliedCseqs(rig)).toEqual(range(1, row.next_cseq - 1));
    expect(rig.agent.store.orders.findByBarcode(second)).toHaveLength(1);
    expect(rig.agent.store.orders.findByBarcode(third)).toHaveLength(1);
    expect(await w.orderState(first, code)).toBe(OrderState.CourierLoaded);
    // At most batchSize (3) per message and windowSize (5) unacked.
    expect(Math.max(...eventsOf(rig.published).map((items) => items.length))).toBeLessThanOrEqual(3);
    expect(rig.maxInFlight).toBeLessThanOrEqual(5);
    expect(rig.maxInFlight).toBeGreaterThan(0);
  });

  it('sends after a restart the events committed but lost or never published before the stop, and applies no command twice', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    const barcode = await w.createOrder(id, `restart-${id}`);
    const code = await w.createRoute(id, `courier-restart-${id}`);
    await w.converged(rig);

    // Everything the agent publishes from here on is lost: events, and the acks of commands.
    rig.drop = (m) => m.type !== 'hello';
    await signIn(rig, code);
    await load(rig, barcode);
    const more = await w.createOrder(id, `restart-more-${id}`);
    await eventually(() => rig.agent.store.orders.findByBarcode(more).length > 0, 'the new order at the agent');
    await eventually(() => rig.dropped.some((m) => m.type === 'events' && m.items.some((e) => e.type === 'parcel.loaded')), 'the load to be sent');
    // Then the link goes down and one more event commits that is never published at all.
    rig.proxy.block();
    rig.proxy.cut();
    await eventually(() => !rig.agent.link!.connected, 'the link to be down');
    const sentBefore = rig.dropped.length + rig.published.length;
    await signIn(rig, code);
    expect(rig.dropped.length + rig.published.length).toBe(sentBefore);
    const cloudBefore = await w.locker(id);
    expect(cloudBefore.applied_cseq).toBeLessThan(rig.agent.store.appliedCseq());
    expect(cloudBefore.acked_dseq).toBeLessThan(rig.agent.store.outbox.lastDseq());

    await rig.stopAgent();
    rig.drop = null;
    rig.proxy.unblock();
    const whileStopped = await w.createOrder(id, `restart-later-${id}`);
    await rig.startAgent();
    const row = await w.converged(rig);
    expect(appliedCseqs(rig)).toEqual(range(1, row.next_cseq - 1));
    expect(rig.agent.store.orders.findByBarcode(whileStopped)).toHaveLength(1);
    expect(await cloudInbox(w, id)).toEqual(asInbox(rig.agent.store.eventsAfter(0, 1_000)));
    expect((await cloudInbox(w, id)).filter((e) => e.type === 'parcel.loaded')).toHaveLength(1);
    expect(await w.orderState(barcode, code)).toBe(OrderState.CourierLoaded);
  });

  it('skips the commands the cloud sends again after a lost ack, and acks them again', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    await w.converged(rig);
    rig.drop = (m) => m.type === 'ack';
    const barcode = await w.createOrder(id, `lost-ack-${id}`);
    await eventually(() => rig.agent.store.orders.findByBarcode(barcode).length > 0, 'the order at the agent');
    const cseq = rig.agent.store.appliedCseq();
    rig.drop = null;
    expect((await w.locker(id)).applied_cseq).toBe(cseq - 1);

    w.clock.advance(30_000);
    await w.link.pollOnce();
    await w.converged(rig);
    expect(rig.applied.filter((a) => a.status === 'duplicate')).toEqual([{ cseq, status: 'duplicate' }]);
    expect(appliedCseqs(rig)).toEqual(range(1, cseq));
  });

  it('applies nothing after a missing command until the cloud sends it again', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    await w.converged(rig);
    const next = rig.agent.store.appliedCseq() + 1;
    const carries = (cseq: number) => (m: { type: string; items?: { cseq: number }[] }) => m.type === 'commands' && (m.items ?? []).some((c) => c.cseq === cseq);
    rig.dropDown = carries(next);
    const lost = await w.createOrder(id, `gap-a-${id}`);
    await eventually(() => rig.received.some(carries(next)), `command ${next} to be lost`);
    rig.dropDown = null;
    const after = await w.createOrder(id, `gap-b-${id}`);
    await eventually(() => rig.applied.some((a) => a.cseq === next + 1), `command ${next + 1} to arrive`);
    expect(rig.applied.filter((a) => a.cseq >= next)).toEqual([{ cseq: next + 1, status: 'gap' }]);
    expect(rig.agent.store.appliedCseq()).toBe(next - 1);
    expect(rig.agent.store.orders.findByBarcode(after)).toEqual([]);

    w.clock.advance(30_000);
    await w.link.pollOnce();
    await w.converged(rig);
    expect(appliedCseqs(rig)).toEqual(range(1, next + 1));
    expect(rig.agent.store.orders.findByBarcode(lost)).toHaveLength(1);
    expect(rig.agent.store.orders.findByBarcode(after)).toHaveLength(1);
  });

  it('sends unacked events again after resendAfterMs without an ack, and not before', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    const code = await w.createRoute(id, `courier-resend-${id}`);
    await w.converged(rig);
    rig.drop = (m) => m.type === 'events';
    await signIn(rig, code);
    await eventually(() => rig.dropped.some((m) => m.type === 'events'), 'the event to be sent');
    rig.drop = null;
    const sends = () => eventsOf(rig.published).length;
    const before = sends();

    w.clock.advance(19_999);
    rig.timers.runDue();
    expect(sends()).toBe(before);
    w.clock.advance(1);
    rig.timers.runDue();
    expect(sends()).toBe(before + 1);
    await w.converged(rig);
    expect(await cloudInbox(w, id)).toEqual(asInbox(rig.agent.store.eventsAfter(0, 1_000)));
  });

  it('gets a snapshot when the log no longer reaches back to its restored store, and keeps its physical facts', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    const externalId = `snap-${id}`;
    const barcode = await w.createOrder(id, externalId);
    const code = await w.createRoute(id, `courier-snap-${id}`);
    await w.converged(rig);
    await signIn(rig, code);
    const cellId = await load(rig, barcode);
    await w.converged(rig);
    const orderId = rig.agent.store.orders.findByBarcode(barcode)[0]!.order.intent.orderId;

    await rig.stopAgent();
    rig.backup();
    await rig.startAgent();
    await w.converged(rig);
    const dseqAtBackup = rig.agent.store.outbox.lastDseq();

    // The cloud goes on: the loaded position is cancelled (Return initiated), a new order comes.
    expect((await w.call('PUT', '/api/v4/auth/delivery/order/place/cancel', { extId: externalId, barcode })).status).toBe(200);
    const other = await w.createOrder(id, `snap-other-${id}`);
    await w.converged(rig);
    expect(rig.agent.store.outbox.lastDseq()).toBe(dseqAtBackup);
    const connBefore = rig.agent.link!.conn;
    await rig.stopAgent();

    w.clock.advance(120_000);
    expect(await w.link.trimOnce()).toBeGreaterThan(0);
    rig.restore();
    await rig.startAgent();
    const row = await w.converged(rig);

    // One snapshot, or two when the hello of the connection given up for a higher counter was answered too.
    expect(rig.snapshots.length).toBeGreaterThan(0);
    expect(rig.snapshots.every((x) => x.cseq === row.next_cseq - 1 && x.status === 'applied')).toBe(true);
    // The restored store's counter was behind the broker's retained presence: it went above it.
    expect(rig.agent.link!.conn).toBeGreaterThan(connBefore);
    expect(rig.agent.store.orders.findByBarcode(other)).toHaveLength(1);
    expect(rig.agent.store.orders.get(orderId)?.intent.state).toBe(OrderState.ReturnInitiated);
    expect(rig.agent.store.parcels.get(orderId, barcode)).toMatchObject({ cellId, state: 'in_cell' });
  });

  it('stays online when the last will of the older connection comes with the reconnect', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    const code = await w.createRoute(id, `courier-presence-${id}`);
    await w.converged(rig);
    const old = rig.agent.link!.conn;
    const observer = await connectClient(w.brokerUrl, { clientId: `${CLOUD_MQTT.username}-observer-${id}`, ...CLOUD_MQTT });
    await observer.subscribe(topics.presence(String(id)));
    try {
      // The agent's end of the connection is gone; the broker still believes in it until the
      // agent comes back under the same client id.
      rig.proxy.strand();
      await eventually(() => rig.agent.link!.connected && rig.agent.link!.conn > old, 'the agent to reconnect');
      rig.proxy.releaseStranded();
      await observer.waitFor((m) => m.payload !== '' && (JSON.parse(m.payload) as { online: boolean; conn: number }).conn === old && !(JSON.parse(m.payload) as { online: boolean }).online, 'the will of the old connection');
      // An event acked after the will proves the cloud has handled the will.
      await signIn(rig, code);
      await w.converged(rig);
      expect(await w.locker(id)).toMatchObject({ online: 1, presence_conn: rig.agent.link!.conn });
    } finally {
      await observer.end();
    }
  });

  it('ignores a down message over its size bound before parsing it, and syncs on', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    await w.converged(rig);
    const before = rig.agent.store.appliedCseq();
    const cloud = await connectClient(w.brokerUrl, { clientId: `${CLOUD_MQTT.username}-bulk-${id}`, ...CLOUD_MQTT });
    try {
      // Over the rig's 64 KiB bound, and a command batch that would apply were it read.
      const items = Array.from({ length: 400 }, (_, i) => forged(before + 1 + i, `forged-big-${i}`));
      const payload = JSON.stringify({ v: PROTOCOL_VERSION, type: 'commands', items });
      expect(payload.length).toBeGreaterThan(65_536);
      await cloud.publish(topics.down(String(id)), payload);
      await eventually(() => rig.agent.link!.oversizedRefused === 1, 'the refusal');
      const barcode = await w.createOrder(id, `after-big-${id}`);
      await eventually(() => rig.agent.store.orders.findByBarcode(barcode).length > 0, 'the real order at the agent');
      expect(rig.agent.store.orders.all().filter((o) => o.intent.orderId.startsWith('forged'))).toEqual([]);
    } finally {
      await cloud.end();
    }
  });

  it('ignores down messages that are not JSON, of another protocol version, off the schema, or retained', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    await w.converged(rig);
    const next = rig.agent.store.appliedCseq() + 1;
    const down = topics.down(String(id));
    const cloud = await connectClient(w.brokerUrl, { clientId: `${CLOUD_MQTT.username}-forger-${id}`, ...CLOUD_MQTT });
    try {
      await cloud.publish(down, 'not json');
      await cloud.publish(down, { v: PROTOCOL_VERSION + 1, type: 'commands', items: [forged(next, 'forged-v2')] });
      await cloud.publish(down, { v: PROTOCOL_VERSION, type: 'commands', items: [{ ...forged(next, 'forged-shape'), order: { orderId: 'forged-shape' } }] });
      if (w.broker === 'external') {
        // Only a broker that keeps retained messages on any topic can deliver a stale copy; the
        // embedded one drops the flag. It arrives flagged retained when the agent subscribes again.
        rig.proxy.block();
        rig.proxy.cut();
        await eventually(() => !rig.agent.link!.connected, 'the link to be down');
        await cloud.publish(down, { v: PROTOCOL_VERSION, type: 'commands', items: [forged(next, 'forged-retained')] }, { retain: true });
        rig.proxy.unblock();
        await w.converged(rig);
      }
      const barcode = await w.createOrder(id, `real-${id}`);
      await eventually(() => rig.agent.store.orders.findByBarcode(barcode).length > 0, 'the real order at the agent');
      await w.converged(rig);
      expect(appliedCseqs(rig)).toEqual(range(1, next));
      expect(rig.agent.store.orders.all().filter((o) => o.intent.orderId.startsWith('forged'))).toEqual([]);
    } finally {
      if (w.broker === 'external') await cloud.publish(down, '', { retain: true });
      await cloud.end();
    }
  });
}
