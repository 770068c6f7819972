/**
 * A client's byte rate on the embedded broker: a locker sending faster than
 * MQTT_MAX_CLIENT_BYTES_PER_SECOND is slowed (the broker stops reading its socket, which it logs)
 * and loses nothing: every message reaches the cloud's subscription, in order.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBroker } from '../../cloud/src/broker/embedded-broker.js';
import { hashMqttPassword } from '../../cloud/src/broker/mqtt-password.js';
import { topics } from '../../shared/src/topics.js';
import { type TestDatabase, openTestDatabase } from '../helpers/cloud-db.js';
import { connectClient } from './mqtt-client.js';

const cloudSecret = { username: 'cloud', password: 'cloud-secret' };
const PACKET = 65_536;
const RATE = 65_536;

describe('embedded broker: a byte rate per client', () => {
  let tdb: TestDatabase;
  let broker: EmbeddedBroker;
  const logged: string[] = [];
  beforeAll(async () => {
    tdb = await openTestDatabase('sqlite');
    await tdb.db
      .insertInto('lockers')
      .values({ id: 301, name: 'L301', timezone: 'Europe/Moscow', depth: 600, active: 1, broken: 0, scanner: 1, profile: '{}', mqtt_password_hash: hashMqttPassword('pw-301'), updated_at: 0 })
      .execute();
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    broker = new EmbeddedBroker({ db: tdb, logger: pino({ level: 'debug' }, sink), host: '127.0.0.1', port: 0, cloud: cloudSecret, maxPacketBytes: PACKET, maxClientBytesPerSecond: RATE });
    await broker.start();
  });
  afterAll(async () => {
    await broker.stop();
    await tdb.close();
  });

  it('slows a locker over its rate and delivers all it sent, in order', async () => {
    const cloud = await connectClient(broker.url, { clientId: 'cloud-1', ...cloudSecret });
    expect(await cloud.subscribe('lockers/+/up')).toBe(1);
    const locker = await connectClient(broker.url, { clientId: '301', username: '301', password: 'pw-301' });
    // Five messages near the packet limit: more than the burst of two packets.
    const sent = Array.from({ length: 5 }, (_, i) => `${i}:${'x'.repeat(PACKET - 1_000)}`);
    for (const text of sent) await locker.publish(topics.up('301'), text);
    await cloud.waitFor((m) => m.payload.startsWith('4:'), 'the last message at the cloud');
    expect(cloud.received.map((m) => m.payload)).toEqual(sent);
    expect(logged.some((line) => line.includes('over its byte rate'))).toBe(true);
    // Slowed, not cut off.
    expect(locker.closed).toBe(false);
    await locker.end();
    await cloud.end();
  });
});
