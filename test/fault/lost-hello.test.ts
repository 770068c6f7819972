/**
 * A hello the cloud never got (published while the cloud was still resubscribing after a broker
 * restart, the case the fault suite found) must not leave the locker without commands for the
 * rest of its connection. The agent sends no event before an ack names its connection, and says
 * hello again: after its resend time when nothing comes, and at once when an ack of an earlier
 * connection arrives (mqtt.js sending one in flight again, or the cloud asking for lost hellos
 * after it subscribed again, which it does on every subscribe).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../shared/src/protocol.js';
import { topics } from '../../shared/src/topics.js';
import { connectClient } from '../broker/mqtt-client.js';
import { type AgentRig, CLOUD_MQTT, type LinkWorld, eventually, openLinkWorld } from '../link/link-world.js';
import { KioskClient } from './kiosk-client.js';

/** Cuts the link; the next connection's hello is lost on the way. Returns that connection's counter. */
async function reconnectLosingHello(rig: AgentRig, before: number): Promise<number> {
  rig.drop = (m) => m.type === 'hello';
  rig.proxy.cut();
  await eventually(() => rig.agent.link!.connected && rig.agent.link!.conn > before && rig.dropped.some((m) => m.type === 'hello'), 'a reconnect whose hello is lost');
  rig.drop = null;
  return rig.agent.link!.conn;
}

describe('a hello the cloud never got', () => {
  let w: LinkWorld;
  beforeAll(async () => {
    w = await openLinkWorld('sqlite', 'embedded');
  });
  afterAll(async () => w?.close());

  it('is said again after resendAfterMs when no answer comes', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    const code = await w.createRoute(id, `courier-hello-${id}`);
    await w.converged(rig);
    const before = rig.agent.link!.conn;
    const { acked_dseq: ackedBefore } = await w.locker(id);

    // The next connection's hello is lost on the way.
    const conn = await reconnectLosingHello(rig, before);

    // A fact recorded now waits: the cloud does not know this connection yet.
    expect((await new KioskClient(() => rig.agent.screenUrl, rig.sim).signIn(code)).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(rig.published.filter((m) => m.type === 'events' && m.items.some((e) => e.dseq > ackedBefore))).toEqual([]);
    const barcode = await w.createOrder(id, `hello-${id}`);
    expect((await w.locker(id)).applied_cseq).toBeLessThan((await w.locker(id)).next_cseq - 1);

    // After resendAfterMs without an answer the agent says hello again; then both streams flow.
    w.clock.advance(20_000);
    rig.timers.runDue();
    await w.converged(rig);
    expect(rig.published.filter((m) => m.type === 'hello' && m.conn === conn)).toHaveLength(1);
    expect(rig.agent.store.orders.findByBarcode(barcode)).toHaveLength(1);
    expect((await w.inbox(id)).length).toBe(rig.agent.store.outbox.lastDseq());
  });

  it('is said again at once when an ack names an earlier connection (mqtt.js resending one in flight)', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    await w.converged(rig);
    const before = rig.agent.link!.conn;
    const { acked_dseq: ackedBefore } = await w.locker(id);

    const conn = await reconnectLosingHello(rig, before);
    const barcode = await w.createOrder(id, `hello-late-${id}`);

    // An ack of the earlier connection comes late: the cloud has not had this connection's hello.
    const cloud = await connectClient(w.brokerUrl, { clientId: `${CLOUD_MQTT.username}-late-${id}`, ...CLOUD_MQTT });
    try {
      await cloud.publish(topics.down(String(id)), { v: PROTOCOL_VERSION, type: 'ack', ackedDseq: ackedBefore, conn: before });
    } finally {
      await cloud.end();
    }
    // No clock moves: the hello is said again on the ack, and both streams flow.
    await w.converged(rig);
    expect(rig.published.filter((m) => m.type === 'hello' && m.conn === conn)).toHaveLength(1);
    expect(rig.agent.store.orders.findByBarcode(barcode)).toHaveLength(1);
  });

  it('is asked for by the cloud when it subscribes again: a locker back before the cloud waits no resend time', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    await w.converged(rig);
    const before = rig.agent.link!.conn;

    // The cloud's link is away (its broker connection restarting) while the locker reconnects.
    await w.link.stop();
    rig.proxy.cut();
    await eventually(
      () => rig.agent.link!.connected && rig.agent.link!.conn > before && rig.published.some((m) => m.type === 'hello' && m.conn === rig.agent.link!.conn),
      'a reconnect whose hello nobody hears',
    );
    const conn = rig.agent.link!.conn;
    await w.link.start();
    const barcode = await w.createOrder(id, `hello-cloud-back-${id}`);
    // No clock moves: the cloud's ack naming the earlier connection brings the hello again.
    await w.converged(rig);
    expect(rig.published.filter((m) => m.type === 'hello' && m.conn === conn)).toHaveLength(2);
    expect(rig.agent.store.orders.findByBarcode(barcode)).toHaveLength(1);
  });
});
