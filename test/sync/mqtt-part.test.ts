import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashMqttPassword } from '../../cloud/src/broker/mqtt-password.js';
import { OutboxSignals } from '../../cloud/src/outbox/signals.js';
import { MqttPart } from '../../cloud/src/sync/mqtt-part.js';
import { type TestDatabase, openTestDatabase } from '../helpers/cloud-db.js';
import { ScriptedLocker, codeAttempt } from './scripted-locker.js';
import { recordEffect } from './test-effect.js';

const logger = pino({ level: 'silent' });

describe('the MQTT part of the cloud', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await openTestDatabase('sqlite');
    await tdb.db
      .insertInto('lockers')
      .values({ id: 77, name: 'L77', timezone: 'Europe/Moscow', depth: 600, active: 1, broken: 0, scanner: 1, profile: '{}', mqtt_password_hash: hashMqttPassword('pw-77'), updated_at: 0 })
      .execute();
  });
  afterAll(async () => tdb.close());

  const deps = () => ({ db: tdb, signals: new OutboxSignals(), clock: { now: () => 1_000 }, logger, applyEvent: recordEffect });

  it('starts the embedded broker when no URL is set, and serves lockers through it', async () => {
    const part = new MqttPart({ brokerHost: '127.0.0.1', brokerPort: 0, username: 'cloud', password: 'cloud-secret' }, deps());
    await Promise.all([part.start(), part.start()]);
    const l = await ScriptedLocker.connect(part.brokerUrl!, '77', 'pw-77', 1);
    const since = l.mark();
    await l.hello(0, 0, 1);
    await l.events([codeAttempt(1)]);
    await l.waitAck(since, 1);
    await l.end();
    await part.stop();
    await part.stop();
  });

  it('fails to start with a clear error when the broker refuses the cloud', async () => {
    const good = new MqttPart({ brokerHost: '127.0.0.1', brokerPort: 0, username: 'cloud', password: 'cloud-secret' }, deps());
    await good.start();
    const wrong = new MqttPart(
      { url: good.brokerUrl, brokerHost: '', brokerPort: 0, username: 'cloud', password: 'wrong' },
      { ...deps(), options: { connectTimeoutMs: 5_000 } },
    );
    await expect(wrong.start()).rejects.toThrow(/refused the cloud's connection/);
    await good.stop();
  });
});
