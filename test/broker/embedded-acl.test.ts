import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBroker } from '../../cloud/src/broker/embedded-broker.js';
import { hashMqttPassword } from '../../cloud/src/broker/mqtt-password.js';
import { type TestDatabase, openTestDatabase } from '../helpers/cloud-db.js';
import { type AclTarget, aclScenarios } from './acl-scenarios.js';
import { connectClient } from './mqtt-client.js';

const logger = pino({ level: 'silent' });
const lockerA = { id: '101', password: 'pw-101-secret' };
const lockerB = { id: '102', password: 'pw-102-secret' };
const cloudSecret = { username: 'cloud', password: 'cloud-secret' };

async function seedLockers(tdb: TestDatabase): Promise<void> {
  for (const l of [lockerA, lockerB]) {
    await tdb.db
      .insertInto('lockers')
      .values({
        id: Number(l.id), name: `L${l.id}`, timezone: 'Europe/Moscow', depth: 600, active: 1, broken: 0, scanner: 1,
        profile: '{}', mqtt_password_hash: hashMqttPassword(l.password), updated_at: 0,
      })
      .execute();
  }
}

describe('embedded broker access control', () => {
  let tdb: TestDatabase;
  let broker: EmbeddedBroker;
  let target: AclTarget;

  beforeAll(async () => {
    tdb = await openTestDatabase('sqlite');
    await seedLockers(tdb);
    broker = new EmbeddedBroker({ db: tdb, logger, host: '127.0.0.1', port: 0, cloud: cloudSecret });
    await broker.start();
    target = {
      url: broker.url,
      clouds: [
        { clientId: 'cloud-1', ...cloudSecret },
        { clientId: 'cloud-2', ...cloudSecret },
      ],
      lockerA,
      lockerB,
    };
  });
  afterAll(async () => {
    await broker.stop();
    await tdb.close();
  });

  aclScenarios(() => target);

  it('never delivers a retained command', async () => {
    const cloud = await connectClient(broker.url, target.clouds[0]);
    await cloud.publish(`lockers/${lockerA.id}/down`, 'retained-command', { retain: true });
    const a = await connectClient(broker.url, { clientId: lockerA.id, username: lockerA.id, password: lockerA.password });
    await a.subscribe(`lockers/${lockerA.id}/down`);
    await cloud.publish(`lockers/${lockerA.id}/down`, 'live-command');
    await a.waitFor((m) => m.payload === 'live-command');
    expect(a.received.map((m) => m.payload)).toEqual(['live-command']);
    await Promise.all([a.end(), cloud.end()]);
  });

  it('refuses a cloud client id outside its own prefix', async () => {
    await expect(connectClient(broker.url, { clientId: lockerA.id, ...cloudSecret })).rejects.toMatchObject({ code: 2 });
  });

  it('names the port setting when the port is taken', async () => {
    const second = new EmbeddedBroker({ db: tdb, logger, host: '127.0.0.1', port: broker.port, portSetting: 'MQTT_BROKER_PORT', cloud: cloudSecret });
    await expect(second.start()).rejects.toThrow(/MQTT_BROKER_PORT.*already in use/);
    await second.stop();
  });

  it('starts and stops idempotently', async () => {
    const b = new EmbeddedBroker({ db: tdb, logger, host: '127.0.0.1', port: 0, cloud: cloudSecret });
    const [p1, p2] = await Promise.all([b.start(), b.start()]);
    expect(p1).toBe(p2);
    await b.stop();
    await b.stop();
  });
});
