/**
 * The locker link's message size bound through a real MQTT client: an oversized publish is cut at
 * the embedded broker (connection closed, back-off, metric, alert naming the locker) or, past a
 * broker that lets it through, refused by the cloud before parsing; another locker's link keeps
 * working meanwhile.
 */
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashMqttPassword } from '../../cloud/src/broker/mqtt-password.js';
import { LinkMetrics } from '../../cloud/src/metrics/link.js';
import { OutboxSignals } from '../../cloud/src/outbox/signals.js';
import { MqttPart } from '../../cloud/src/sync/mqtt-part.js';
import { MAX_MESSAGE_BYTES } from '../../shared/src/protocol.js';
import { topics } from '../../shared/src/topics.js';
import { type TestDatabase, openTestDatabase } from '../helpers/cloud-db.js';
import { eventually } from '../helpers/eventually.js';
import { ScriptedLocker, codeAttempt } from '../sync/scripted-locker.js';
import { recordEffect } from '../sync/test-effect.js';
import { connectClient } from './mqtt-client.js';

const logger = pino({ level: 'silent' });

describe('the size bound of locker messages', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await openTestDatabase('sqlite');
    for (const id of [77, 78]) {
      await tdb.db
        .insertInto('lockers')
        .values({ id, name: `L${id}`, timezone: 'Europe/Moscow', depth: 600, active: 1, broken: 0, scanner: 1, profile: '{}', mqtt_password_hash: hashMqttPassword(`pw-${id}`), updated_at: 0 })
        .execute();
    }
  });
  afterAll(async () => tdb.close());

  const registry = new Registry();
  const metrics = new LinkMetrics(registry);
  const signals = new OutboxSignals();
  const deps = () => ({ db: tdb, signals, clock: { now: () => 1_000 }, logger, applyEvent: recordEffect, metrics });
  const counted = async (at: string): Promise<number> => (await registry.getSingleMetric('cloud_mqtt_oversized_messages_total')!.get()).values.find((v) => v.labels.at === at)?.value ?? 0;
  const alert = (lockerId: number) =>
    tdb.db.selectFrom('locker_alerts').selectAll().where('locker_id', '=', lockerId).where('kind', '=', 'mqtt.oversized').executeTakeFirst();

  it('the embedded broker closes an oversized publisher, backs it off and raises an alert; another locker syncs on', async () => {
    const part = new MqttPart({ brokerHost: '127.0.0.1', brokerPort: 0, username: 'cloud', password: 'cloud-secret' }, deps());
    await part.start();
    const live: unknown[] = [];
    const off = signals.live.subscribe((m) => live.push(m));
    try {
      const other = await ScriptedLocker.connect(part.brokerUrl!, '78', 'pw-78', 1);
      const noisy = await connectClient(part.brokerUrl!, { clientId: '77', username: '77', password: 'pw-77' });
      noisy.client.publish(topics.up('77'), Buffer.alloc(MAX_MESSAGE_BYTES + 1, 0x7b), { qos: 1 });
      await noisy.waitClosed();
      expect(await counted('broker')).toBe(1);

      // The other locker's link works through it all.
      const since = other.mark();
      await other.hello(0, 0, 1);
      await other.events([codeAttempt(1)]);
      await other.waitAck(since, 1);

      const raised = await eventually(() => alert(77), 'the alert on locker 77');
      expect(raised).toMatchObject({ severity: 'warning', status: 'open', count: 1 });
      // The packet's remaining length: the payload, the topic and the packet id.
      expect(JSON.parse(raised.detail)).toEqual({ bytes: MAX_MESSAGE_BYTES + 1 + 2 + topics.up('77').length + 2, limit: MAX_MESSAGE_BYTES, at: 'broker' });
      expect(live).toContainEqual(expect.objectContaining({ type: 'alert', lockerId: 77, kind: 'mqtt.oversized' }));

      // Right after, the offender is refused at CONNECT (server unavailable) for its back-off.
      await expect(connectClient(part.brokerUrl!, { clientId: '77', username: '77', password: 'pw-77' })).rejects.toThrow(/unavailable|closed/i);
      await other.end();
    } finally {
      off();
      await part.stop();
    }
  });

  it('the cloud refuses a message over its limit before parsing when the broker let it through', async () => {
    const broker = new MqttPart({ brokerHost: '127.0.0.1', brokerPort: 0, username: 'cloud', password: 'cloud-secret', maxPacketBytes: 4 * MAX_MESSAGE_BYTES }, { ...deps(), metrics: undefined });
    await broker.start();
    const cloud = new MqttPart({ url: broker.brokerUrl, brokerHost: '', brokerPort: 0, username: 'cloud', password: 'cloud-secret', maxPacketBytes: 65_536 }, deps());
    await cloud.start();
    try {
      const locker = await connectClient(broker.brokerUrl!, { clientId: '78', username: '78', password: 'pw-78' });
      // Not JSON at all: were it parsed, the log would say so; it is counted as too big instead.
      await locker.publish(topics.up('78'), 'x'.repeat(70_000));
      await eventually(async () => (await counted('link')) === 1, 'the refusal counted');
      const raised = await eventually(() => alert(78), 'the alert on locker 78');
      expect(JSON.parse(raised.detail)).toMatchObject({ bytes: 70_000, limit: 65_536, at: 'link' });
      await locker.end();
    } finally {
      await cloud.stop();
      await broker.stop();
    }
  });
});
