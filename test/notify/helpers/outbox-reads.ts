/** Reads of what the cloud recorded, for assertions: the order row and its latest intent at the locker. */
import type { OrderIntent } from '../../../shared/src/protocol.js';
import type { TestDatabase } from '../../helpers/cloud-db.js';

export async function orderRow(db: TestDatabase, orderId: string) {
  return db.db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
}

export async function parcelStates(db: TestDatabase, orderId: string): Promise<Record<string, string>> {
  const rows = await db.db.selectFrom('parcels').select(['barcode', 'state']).where('order_id', '=', orderId).execute();
  return Object.fromEntries(rows.map((r) => [r.barcode, r.state]));
}

/** The last order.upsert recorded for the order at the locker, and its cseq. */
export async function lastIntent(db: TestDatabase, lockerId: number, orderId: string): Promise<{ cseq: number; order: OrderIntent }> {
  const rows = await db.db
    .selectFrom('locker_commands')
    .select(['cseq', 'body'])
    .where('locker_id', '=', lockerId)
    .where('type', '=', 'order.upsert')
    .orderBy('cseq', 'desc')
    .execute();
  for (const r of rows) {
    const body = JSON.parse(r.body) as { order: OrderIntent };
    if (body.order.orderId === orderId) return { cseq: r.cseq, order: body.order };
  }
  throw new Error(`no order.upsert for ${orderId}`);
}

/** The locker acknowledges every command recorded so far (what the link records on an ack). */
export async function lockerAppliedAll(db: TestDatabase, lockerId: number): Promise<number> {
  const locker = await db.db.selectFrom('lockers').select('next_cseq').where('id', '=', lockerId).executeTakeFirstOrThrow();
  await db.db.updateTable('lockers').set({ applied_cseq: locker.next_cseq - 1 }).where('id', '=', lockerId).execute();
  return locker.next_cseq - 1;
}
