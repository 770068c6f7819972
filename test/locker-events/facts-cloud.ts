/**
 * A cloud for the locker-fact tests: the API cloud of test/cloud (manual clock, test fleet) plus
 * `fact()`, which applies a locker event as the locker link does (its inbox row and
 * applyLockerEvent inside a locker transaction, what operators watching live are told after it), and reads of what the facts recorded: the marketplace's notifications,
 * the locker's commands, alerts and cells.
 */
import { EventBatch } from '../../cloud/src/sync/up-stream.js';
import { lockerTransaction } from '../../cloud/src/db/transaction.js';
import { createLockerEventApplier } from '../../cloud/src/locker-events/apply-locker-event.js';
import type { Engine } from '../../cloud/src/db/database.js';
import { completeReturns, expireStorage } from '../../cloud/src/expiry/expire.js';
import type { CommandBody, EventBody } from '../../shared/src/protocol.js';
import { insertInboxEvent } from '../../cloud/src/repositories/locker-stream.js';
import { KEYS, orderBody } from '../cloud/helpers/fleet-fixtures.js';
import { startTestCloud, type TestCloud } from '../cloud/helpers/test-cloud.js';
import { lockerAppliedAll } from '../notify/helpers/outbox-reads.js';

export { KEYS, orderBody };

export interface FactsCloud extends TestCloud {
  fact(lockerId: number, body: EventBody): Promise<readonly number[]>;
  orderId(externalId: string): Promise<string>;
  /** Notifications the order owes, in order: [kind, body]. */
  sent(orderId: string): Promise<[string, Record<string, string | number>][]>;
  /** Commands recorded for a locker after cseq `after`. */
  commands(lockerId: number, after?: number): Promise<(CommandBody & { cseq: number })[]>;
  /** The storage clock's moves, now: expiry, then 6 -> 7 for what the locker confirmed. */
  expire(): Promise<number>;
  confirm(lockerId: number): Promise<number>;
}

export async function startFactsCloud(engine: Engine): Promise<FactsCloud> {
  const tc = await startTestCloud(engine, { now: '2030-03-05T09:00:00Z' });
  const deps = tc.cloud.deps;
  const apply = createLockerEventApplier(deps);
  let dseq = 0;
  return {
    ...tc,
    async fact(lockerId, body) {
      const event = { ...body, dseq: ++dseq, at: tc.clock.now() };
      const effect = await lockerTransaction(tc.db, [lockerId], async (tx) => {
        await insertInboxEvent(tx, lockerId, event, tc.clock.now());
        const batch = new EventBatch();
        const effect = await apply(tx, lockerId, event, batch);
        await batch.end(tx);
        return effect;
      });
      effect?.afterCommit?.();
      return effect?.commandsFor ?? [];
    },
    async orderId(externalId) {
      const row = await tc.db.db.selectFrom('orders').select('id').where('external_id', '=', externalId).executeTakeFirstOrThrow();
      return row.id;
    },
    async sent(orderId) {
      const rows = await tc.db.db.selectFrom('notifications').select(['kind', 'body']).where('order_id', '=', orderId).orderBy('id').execute();
      return rows.map((r) => [r.kind, JSON.parse(r.body) as Record<string, string | number>]);
    },
    async commands(lockerId, after = 0) {
      const rows = await tc.db.db.selectFrom('locker_commands').select(['cseq', 'body']).where('locker_id', '=', lockerId).where('cseq', '>', after).orderBy('cseq').execute();
      return rows.map((r) => ({ ...(JSON.parse(r.body) as CommandBody), cseq: r.cseq }));
    },
    expire: () => expireStorage(deps),
    async confirm(lockerId) {
      await lockerAppliedAll(tc.db, lockerId);
      return completeReturns(deps, 15 * 60_000, lockerId);
    },
  };
}
