/**
 * A hello the cloud never got (published while the cloud was still resubscribing after a broker
 * restart, the case the fault suite found) must not leave the locker without commands for the
 * rest of its connection, even when an ack of an earlier connection arrives meanwhile (mqtt.js
 * sends what was in flight again when it reconnects). The agent says hello again until an ack
 * names its connection, and sends no event before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '../../shared/src/protocol.js';
import { topics } from '../../shared/src/topics.js';
import { connectClient } from '../broker/mqtt-client.js';
import { CLOUD_MQTT, type LinkWorld, eventually, openLinkWorld } from '../link/link-world.js';
import { KioskClient } from './kiosk-client.js';

describe('a hello the cloud never got', () => {
  let w: LinkWorld;
  beforeAll(async () => {
    w = await openLinkWorld('sqlite', 'embedded');
  });
  afterAll(async () => w?.close());

  it('is said again until an ack names the connection, whatever earlier acks arrive', async () => {
    const id = w.takeLocker();
    const rig = await w.startAgent(id);
    const code = await w.createRoute(id, `courier-hello-${id}`);
    await w.converged(rig);
    const before = rig.agent.link!.conn;
    const { acked_dseq: ackedBefore } = await w.locker(id);

    // The next connection's hello is lost on the way.
    rig.drop = (m) => m.type === 'hello';
    rig.proxy.cut();
    await eventually(() => rig.agent.link!.connected && rig.agent.link!.conn > before && rig.dropped.some((m) => m.type === 'hello'), 'a reconnect whose hello is lost');
    const conn = rig.agent.link!.conn;
    rig.drop = null;

    // An ack of the earlier connection comes late.
    const cloud = await connectClient(w.brokerUrl, { clientId: `${CLOUD_MQTT.username}-late-${id}`, ...CLOUD_MQTT });
    try {
      await cloud.publish(topics.down(String(id)), { v: PROTOCOL_VERSION, type: 'ack', ackedDseq: ackedBefore, conn: before });
      await eventually(() => rig.received.some((m) => m.type === 'ack' && m.conn === before), 'the late ack at the agent');
    } finally {
      await cloud.end();
    }
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
});
