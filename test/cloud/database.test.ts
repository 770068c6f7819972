import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordChange } from '../../cloud/src/outbox/record-change.js';
import { lockerTransaction } from '../../cloud/src/db/transaction.js';
import { type TestDatabase, openTestDatabase, testEngines } from '../helpers/cloud-db.js';

describe.each(testEngines())('cloud database on %s', (engine) => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await openTestDatabase(engine);
    await tdb.db
      .insertInto('lockers')
      .values({ id: 7, name: 'L7', timezone: 'Europe/Moscow', depth: 600, active: 1, broken: 0, scanner: 1, profile: '{}', mqtt_password_hash: null, updated_at: 0 })
      .execute();
  });
  afterAll(async () => tdb.close());

  it('migrates twice without error', async () => {
    await tdb.migrate();
  });

  it('numbers commands per locker without gaps under concurrent transactions', async () => {
    const body = { type: 'courier.revoke', grantId: 'g' } as const;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        lockerTransaction(tdb, [7], (tx) => recordChange(tx, { at: i, commands: [{ lockerId: 7, body }] })),
      ),
    );
    const rows = await tdb.db.selectFrom('locker_commands').select('cseq').where('locker_id', '=', 7).orderBy('cseq').execute();
    expect(rows.map((r) => r.cseq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('rolls back commands and notifications together', async () => {
    const before = await tdb.db.selectFrom('locker_commands').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    await expect(
      lockerTransaction(tdb, [7], async (tx) => {
        await recordChange(tx, {
          at: 1,
          commands: [{ lockerId: 7, body: { type: 'courier.revoke', grantId: 'x' } }],
          notifications: [{ marketplaceId: 'm', orderId: 'o', kind: 'expiration-date-changes', body: { id: 'e', event_dt: 'a', expire_dt: 'b' } }],
        });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const after = await tdb.db.selectFrom('locker_commands').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    const notes = await tdb.db.selectFrom('notifications').selectAll().execute();
    expect(notes).toHaveLength(0);
  });
});
