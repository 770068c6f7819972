/**
 * The embedded broker's locker passwords come from a copy of the hashes in memory: a CONNECT is
 * answered while the database is busy with other work, a locker added or a password changed
 * since the copy was read is let in at once, and a removed or replaced password stops being
 * admitted once the copy is older than its maximum age.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedBroker } from '../../cloud/src/broker/embedded-broker.js';
import { LockerCredentials } from '../../cloud/src/broker/locker-credentials.js';
import { hashMqttPassword } from '../../cloud/src/broker/mqtt-password.js';
import { type TestDatabase, openTestDatabase } from '../helpers/cloud-db.js';
import { connectClient } from './mqtt-client.js';

const logger = pino({ level: 'silent' });
const cloudSecret = { username: 'cloud', password: 'cloud-secret' };

async function addLocker(tdb: TestDatabase, id: number, password: string): Promise<void> {
  await tdb.db
    .insertInto('lockers')
    .values({
      id, name: `L${id}`, timezone: 'Europe/Moscow', depth: 600, active: 1, broken: 0, scanner: 1,
      profile: '{}', mqtt_password_hash: hashMqttPassword(password), updated_at: 0,
    })
    .execute();
}

async function setPassword(tdb: TestDatabase, id: number, password: string | null): Promise<void> {
  await tdb.db.updateTable('lockers').set({ mqtt_password_hash: password === null ? null : hashMqttPassword(password) }).where('id', '=', id).execute();
}

const locker = (id: number, password: string) => ({ clientId: String(id), username: String(id), password });

describe('embedded broker: locker credentials', () => {
  let tdb: TestDatabase;
  let broker: EmbeddedBroker;

  beforeAll(async () => {
    tdb = await openTestDatabase('sqlite');
    await addLocker(tdb, 201, 'pw-201-secret');
    broker = new EmbeddedBroker({ db: tdb, logger, host: '127.0.0.1', port: 0, cloud: cloudSecret });
    await broker.start();
  });
  afterAll(async () => {
    await broker.stop();
    await tdb.close();
  });

  it('answers a CONNECT while the database connection is held by a transaction', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const tx = tdb.db.transaction().execute(async (t) => {
      await t.selectFrom('lockers').select('id').execute();
      entered();
      await held;
    });
    await inside;
    try {
      const client = await connectClient(broker.url, locker(201, 'pw-201-secret'));
      await client.end();
    } finally {
      release();
      await tx;
    }
  });

  it('admits a locker added after the broker started, and refuses a wrong password', async () => {
    await addLocker(tdb, 202, 'pw-202-secret');
    const client = await connectClient(broker.url, locker(202, 'pw-202-secret'));
    await client.end();
    await expect(connectClient(broker.url, locker(202, 'not-the-password'))).rejects.toMatchObject({ code: 4 });
  });

  it('admits a new password at once', async () => {
    await setPassword(tdb, 201, 'pw-201-new');
    const client = await connectClient(broker.url, locker(201, 'pw-201-new'));
    await client.end();
  });

  it('refuses a replaced or removed password once the copy is too old', async () => {
    const b = new EmbeddedBroker({ db: tdb, logger, host: '127.0.0.1', port: 0, cloud: cloudSecret, credentialsMaxAgeMs: 0 });
    await b.start();
    try {
      await addLocker(tdb, 203, 'pw-203-old');
      await (await connectClient(b.url, locker(203, 'pw-203-old'))).end();
      await setPassword(tdb, 203, 'pw-203-new');
      await expect(connectClient(b.url, locker(203, 'pw-203-old'))).rejects.toMatchObject({ code: 4 });
      await setPassword(tdb, 203, null);
      await expect(connectClient(b.url, locker(203, 'pw-203-new'))).rejects.toMatchObject({ code: 4 });
    } finally {
      await b.stop();
    }
  });
});

describe('locker credentials: the copy and its age', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await openTestDatabase('sqlite');
    await addLocker(tdb, 301, 'pw-301-old');
  });
  afterAll(async () => {
    await tdb.close();
  });

  it('answers from the copy while it is fresh, from the database once it is older than its maximum age', async () => {
    let now = 1_000_000;
    const credentials = new LockerCredentials(tdb, { maxAgeMs: 10_000, now: () => now });
    const pw = (s: string) => Buffer.from(s);
    expect(credentials.checkNow(301, pw('pw-301-old'))).toBeUndefined(); // never read
    await credentials.refresh();
    expect(credentials.checkNow(301, pw('pw-301-old'))).toBe(true);
    expect(credentials.checkNow(301, pw('wrong'))).toBeUndefined();

    await setPassword(tdb, 301, 'pw-301-new');
    now += 10_000;
    expect(await credentials.check(301, pw('pw-301-old'))).toBe(true); // within the bound
    expect(await credentials.check(301, pw('pw-301-new'))).toBe(true); // read at once
    now += 1;
    expect(await credentials.check(301, pw('pw-301-old'))).toBe(false);
    expect(await credentials.check(999, pw('pw-301-new'))).toBe(false);
  });
});
