/** Reads of what the cloud stored, for assertions. */
import type { CommandBody } from '../../../shared/src/protocol.js';
import { commandBodySchema } from '../../../shared/src/protocol.js';
import type { TestCloud } from './test-cloud.js';

export async function orderRow(tc: TestCloud, marketplaceId: string, externalId: string) {
  return tc.db.db.selectFrom('orders').selectAll().where('marketplace_id', '=', marketplaceId).where('external_id', '=', externalId).executeTakeFirstOrThrow();
}

export async function parcelsOf(tc: TestCloud, orderId: string) {
  return tc.db.db.selectFrom('parcels').select(['barcode', 'state', 'cell_id']).where('order_id', '=', orderId).orderBy('position').execute();
}

/** Commands recorded for a locker after cseq `after`, parsed with the protocol schema. */
export async function commandsFor(tc: TestCloud, lockerId: number, after = 0): Promise<(CommandBody & { cseq: number })[]> {
  const rows = await tc.db.db.selectFrom('locker_commands').selectAll().where('locker_id', '=', lockerId).where('cseq', '>', after).orderBy('cseq').execute();
  return rows.map((r) => ({ cseq: r.cseq, ...commandBodySchema.parse(JSON.parse(r.body)) }));
}

export async function lastCseq(tc: TestCloud, lockerId: number): Promise<number> {
  const row = await tc.db.db.selectFrom('lockers').select('next_cseq').where('id', '=', lockerId).executeTakeFirstOrThrow();
  return row.next_cseq - 1;
}

export async function notificationsOf(tc: TestCloud, orderId: string) {
  const rows = await tc.db.db.selectFrom('notifications').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
  return rows.map((r) => ({ kind: r.kind, marketplaceId: r.marketplace_id, body: JSON.parse(r.body) as Record<string, unknown> }));
}
