/**
 * Behaviour of the cloud end of the locker link, through real MQTT, as a locker sees it.
 * Shared by the suites that run it on each database engine and each broker.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { codeAttempt } from './scripted-locker.js';
import { insertOrder } from '../../cloud/src/lifecycle/repository.js';
import type { LockerLink } from '../../cloud/src/sync/locker-link.js';
import type { LinkWorld } from './link-harness.js';
import { failing } from './test-effect.js';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

export function linkScenarios(open: () => Promise<LinkWorld>): void {
  let w: LinkWorld;
  let link: LockerLink;
  beforeAll(async () => {
    w = await open();
    link = await w.startLink({ options: { batchSize: 2, windowSize: 4, resendAfterMs: 30_000 } });
  });
  afterAll(async () => w.close());

  it('replays the commands after the hello, in order and in bounded batches, then acks', async () => {
    const { id } = await w.addLocker();
    await w.writeCommands(id, 3);
    const l = await w.connect(id, 1);
    let since = l.mark();
    await l.hello(0, 0, 1);
    await l.waitAck(since, 0);
    expect(l.commandsSince(since)).toEqual([1, 2, 3]);
    expect(l.down.filter((m) => m.type === 'commands').every((m) => m.type === 'commands' && m.items.length <= 2)).toBe(true);
    await l.ack(2);
    await l.drop();
    await expect.poll(async () => (await w.locker(id)).online).toBe(0);

    // Offline meanwhile: two more commands.
    await w.writeCommands(id, 2);
    const again = await w.connect(id, 2);
    since = again.mark();
    await again.hello(2, 0, 2);
    await again.waitAck(since, 0);
    expect(again.commandsSince(since)).toEqual([3, 4, 5]);
    expect((await w.locker(id)).applied_cseq).toBe(2);
    await again.end();
  });

  it('pushes new commands to an online locker and advances applied_cseq on its acks', async () => {
    const { id } = await w.addLocker();
    const l = await w.connect(id, 1);
    const since = l.mark();
    await l.hello(0, 0, 1);
    await l.waitAck(since, 0);
    const [cseq] = await w.writeCommands(id, 1);
    await l.waitCommand(since, cseq!);
    await l.ack(cseq!);
    await expect.poll(async () => (await w.locker(id)).applied_cseq).toBe(cseq);
    // A stale ack never moves it back.
    await l.ack(0);
    await l.events([codeAttempt(1)]);
    await l.waitAck(since, 1);
    expect((await w.locker(id)).applied_cseq).toBe(cseq);
    await l.end();
  });

  it('picks up commands another process wrote on the next poll', async () => {
    const { id } = await w.addLocker();
    const l = await w.connect(id, 1);
    const since = l.mark();
    await l.hello(0, 0, 1);
    await l.events([codeAttempt(1)]);
    await l.waitAck(since, 1);
    await w.writeCommands(id, 2, false);
    await l.barrier(1);
    expect(l.commandsSince(since)).toEqual([]);
    await link.pollOnce();
    await l.waitCommand(since, 2);
    expect(l.commandsSince(since)).toEqual([1, 2]);
    await l.end();
  });

  it('keeps at most a window of unacked commands out and sends more as acks come', async () => {
    const { id } = await w.addLocker();
    await w.writeCommands(id, 7);
    const l = await w.connect(id, 1);
    const since = l.mark();
    await l.hello(0, 0, 1);
    await l.waitAck(since, 0);
    expect(l.commandsSince(since)).toEqual([1, 2, 3, 4]);
    await l.ack(3);
    await l.waitCommand(since, 7);
    expect(l.commandsSince(since)).toEqual(range(1, 7));
    await l.end();
  });

  it('resends unacked commands after the timeout, and not before', async () => {
    const { id } = await w.addLocker();
    const l = await w.connect(id, 1);
    const since = l.mark();
    await l.hello(0, 0, 1);
    await l.events([codeAttempt(1)]);
    await l.waitAck(since, 1);
    await w.writeCommands(id, 2);
    await l.waitCommand(since, 2);
    expect(l.commandsSince(since)).toEqual([1, 2]);
    w.clock.t += 29_000;
    let mark = l.mark();
    await link.pollOnce();
    await l.barrier(1);
    expect(l.commandsSince(mark)).toEqual([]);
    w.clock.t += 1_000;
    mark = l.mark();
    await link.pollOnce();
    await l.waitCommand(mark, 2);
    expect(l.commandsSince(mark)).toEqual([1, 2]);
    await l.ack(2);
    await expect.poll(async () => (await w.locker(id)).applied_cseq).toBe(2);
    await l.end();
  });

  it('sends a snapshot when the log no longer reaches back to the agent', async () => {
    const { id } = await w.addLocker();
    await insertOrder(
      w.tdb.db,
      {
        id: `o-${id}`, marketplace_id: 'mp', external_id: `e-${id}`, number: null, locker_id: id, date_delivery: '2030-01-01', state: 0,
        with_reservation: 1, request_hash: 'h', create_response: '{}', client_invoice: '{}', notification: '{}', pickup_code_hash: null,
        loaded_at: null, hold_until: null, state_changed_at: 0, created_at: 0, updated_at: 0,
      },
      [{ order_id: `o-${id}`, barcode: `b-${id}`, position: 0, additional_barcodes: '[]', length: null, width: null, height: null, state: 'pending', cell_id: 2, loaded_at: null, updated_at: 0, accessible: 0 }],
    );
    await w.tdb.db.insertInto('partner_marketplaces').values({ partner_id: `p-${id}`, marketplace_id: 'mp' }).execute();
    for (const [sheet, validFor] of [['valid', 30 * 24 * 3600_000], ['expired', 60_000]] as const) {
      await w.tdb.db
        .insertInto('route_sheets')
        .values({ id: `rs-${sheet}-${id}`, courier_id: `c-${id}`, partner_id: `p-${id}`, route_date: '2030-01-01', car_number: 'A001AA', external_id: null, created_at: 0 })
        .execute();
      await w.tdb.db
        .insertInto('route_sheet_lockers')
        .values({ route_sheet_id: `rs-${sheet}-${id}`, locker_id: id, code_hash: 'a'.repeat(64), valid_until: w.clock.now() + validFor })
        .execute();
    }
    await w.writeCommands(id, 3);
    const l = await w.connect(id, 1);
    let since = l.mark();
    await l.hello(0, 0, 1);
    await l.waitAck(since, 0);
    await l.ack(3);
    await expect.poll(async () => (await w.locker(id)).applied_cseq).toBe(3);
    await l.drop();

    // A week later the applied commands are trimmed, and the locker comes back with its state lost.
    w.clock.t += 8 * 24 * 3600_000;
    expect(await link.trimOnce()).toBeGreaterThanOrEqual(3);
    const fresh = await w.connect(id, 2);
    since = fresh.mark();
    await fresh.hello(0, 0, 2);
    const { snapshot } = await fresh.waitSnapshot(since);
    await fresh.waitAck(since, 0);
    expect(snapshot.cseq).toBe(3);
    expect(snapshot.config.lockerId).toBe(String(id));
    expect(snapshot.config.cells.map((c) => c.id)).toEqual([1, 2]);
    expect(snapshot.orders.map((o) => [o.orderId, o.parcels[0]?.cellId])).toEqual([[`o-${id}`, 2]]);
    expect(snapshot.grants).toEqual([
      { grantId: `rs-valid-${id}:${id}`, codeHash: 'a'.repeat(64), validUntil: expect.any(Number), marketplaceIds: ['mp'], courierRef: `c-${id}` },
    ]);
    expect(fresh.commandsSince(since)).toEqual([]);
    await fresh.end();
  });

  it('continues above an agent that is ahead of the log (cloud restored from a backup)', async () => {
    const { id } = await w.addLocker();
    await w.writeCommands(id, 2);
    const l = await w.connect(id, 1);
    const since = l.mark();
    await l.hello(9, 0, 1);
    const { snapshot } = await l.waitSnapshot(since);
    expect(snapshot.cseq).toBe(9);
    await l.ack(9);
    const [next] = await w.writeCommands(id, 1);
    expect(next).toBe(10);
    await l.waitCommand(since, 10);
    await l.end();
  });

  it('applies events once in dseq order, re-acks duplicates and acks cumulatively', async () => {
    const { id } = await w.addLocker();
    const l = await w.connect(id, 1);
    let since = l.mark();
    await l.hello(0, 0, 1);
    await l.events([codeAttempt(2), codeAttempt(1), codeAttempt(3)]);
    await l.waitAck(since, 3);
    since = l.mark();
    await l.events([codeAttempt(2), codeAttempt(3), codeAttempt(4)]);
    await l.waitAck(since, 4);
    since = l.mark();
    await l.events([codeAttempt(1)]);
    await l.waitAck(since, 4);
    expect(await w.effects(id)).toEqual([1, 2, 3, 4]);
    const inbox = await w.tdb.db.selectFrom('inbox_events').select(['dseq', 'type']).where('locker_id', '=', id).orderBy('dseq').execute();
    expect(inbox).toEqual(range(1, 4).map((dseq) => ({ dseq, type: 'code.attempt' })));
    expect((await w.locker(id)).acked_dseq).toBe(4);
    await l.end();
  });

  it('does not apply events after a gap; the resend from the ack fills it', async () => {
    const { id } = await w.addLocker();
    const l = await w.connect(id, 1);
    let since = l.mark();
    await l.hello(0, 0, 1);
    await l.events([codeAttempt(1), codeAttempt(2)]);
    await l.waitAck(since, 2);
    since = l.mark();
    await l.events([codeAttempt(4), codeAttempt(5)]);
    await l.waitAck(since, 2);
    expect(await w.effects(id)).toEqual([1, 2]);
    since = l.mark();
    await l.events([codeAttempt(3), codeAttempt(4), codeAttempt(5)]);
    await l.waitAck(since, 5);
    expect(await w.effects(id)).toEqual([1, 2, 3, 4, 5]);
    await l.end();
  });

  it('keeps the events of a batch before one that fails, undoes that one, and applies the rest on the resend', async () => {
    const { id } = await w.addLocker();
    const l = await w.connect(id, 1);
    let since = l.mark();
    await l.hello(0, 0, 1);
    failing.add(`${id}:3`);
    await l.events(range(1, 5).map(codeAttempt));
    await l.waitAck(since, 2);
    expect(await w.effects(id)).toEqual([1, 2]);
    expect((await w.locker(id)).acked_dseq).toBe(2);
    failing.delete(`${id}:3`);
    since = l.mark();
    await l.events(range(3, 5).map(codeAttempt));
    await l.waitAck(since, 5);
    expect(await w.effects(id)).toEqual([1, 2, 3, 4, 5]);
    const inbox = await w.tdb.db.selectFrom('inbox_events').select('dseq').where('locker_id', '=', id).orderBy('dseq').execute();
    expect(inbox.map((r) => r.dseq)).toEqual(range(1, 5));
    await l.end();
  });

  it('answers a hello with the cloud ack, and adopts a higher agent ack as lost events', async () => {
    const { id } = await w.addLocker();
    const l = await w.connect(id, 1);
    let since = l.mark();
    await l.hello(0, 0, 1);
    await l.events([codeAttempt(1)]);
    await l.waitAck(since, 1);
    since = l.mark();
    await l.hello(0, 0, 1);
    await l.waitAck(since, 1);
    since = l.mark();
    await l.hello(0, 6, 1);
    await l.waitAck(since, 6);
    since = l.mark();
    await l.events([codeAttempt(7)]);
    await l.waitAck(since, 7);
    expect(await w.effects(id)).toEqual([1, 7]);
    await l.end();
  });

  it('keeps presence by connection counter: a lower one never overrides a higher one', async () => {
    const { id } = await w.addLocker();
    const presence = async () => {
      const row = await w.locker(id);
      return [row.presence_conn, row.online];
    };
    const third = await w.connect(id, 3);
    await expect.poll(presence).toEqual([3, 1]);
    await third.drop();
    await expect.poll(presence).toEqual([3, 0]);
    const l = await w.connect(id, 4);
    await expect.poll(presence).toEqual([4, 1]);
    // Late copies from older connections: a will of 3, a hello of 2.
    let since = l.mark();
    await l.presence(false, 3);
    await l.hello(0, 0, 2);
    await l.waitAck(since, 0);
    await l.events([codeAttempt(1)]);
    await l.waitAck(since, 1);
    expect(await presence()).toEqual([4, 1]);
    // For the same connection, offline wins whatever the order.
    await l.presence(false, 4);
    await expect.poll(presence).toEqual([4, 0]);
    since = l.mark();
    await l.presence(true, 4);
    await l.barrier(1);
    expect(await presence()).toEqual([4, 0]);
    // The link's history has a row per flip only: the late copies changed nothing.
    expect(await w.linkHistory(id)).toEqual([1, 0, 1, 0]);
    await l.end();
  });

  it('ignores malformed messages, wrong versions and a hello naming another locker', async () => {
    const { id } = await w.addLocker();
    const l = await w.connect(id, 1);
    const since = l.mark();
    await l.raw('not json');
    await l.raw(JSON.stringify({ v: 99, type: 'hello', lockerId: String(id), appliedCseq: 0, ackedDseq: 0, conn: 1 }));
    await l.raw(JSON.stringify({ v: 1, type: 'events', items: [{ dseq: 0, at: 1, type: 'code.attempt' }] }));
    await l.raw(JSON.stringify({ v: 1, type: 'hello', lockerId: '1', appliedCseq: 0, ackedDseq: 0, conn: 1 }));
    await l.events([codeAttempt(1)]);
    await l.waitAck(since, 1);
    expect(l.down.filter((m) => m.type === 'ack')).toHaveLength(1);
    expect(await w.effects(id)).toEqual([1]);
    await l.end();
  });
}

/** Two cloud link instances on one database, the second in a process of its own: no event is applied twice. */
export function twoInstanceScenario(open: () => Promise<LinkWorld>, sharedGroup?: string): void {
  let w: LinkWorld;
  beforeAll(async () => {
    w = await open();
    await w.startLink({ sharedGroup });
    await w.startLinkProcess(sharedGroup);
  });
  afterAll(async () => w.close());

  it('applies every event exactly once with two cloud link instances', async () => {
    const { id } = await w.addLocker();
    const l = await w.connect(id, 1);
    const since = l.mark();
    await l.hello(0, 0, 1);
    await l.waitAck(since, 0);
    // Overlapping batches, as a locker resending from a stale ack would send them.
    for (let start = 1; start <= 28; start += 3) {
      await l.events(range(Math.max(1, start - 2), start + 2).map(codeAttempt));
    }
    // Then what an agent does: resend from the cloud's ack until everything is acked.
    for (let round = 0; round < 30; round++) {
      const acked = (await w.locker(id)).acked_dseq;
      if (acked === 30) break;
      const mark = l.mark();
      await l.events(range(acked + 1, 30).map(codeAttempt));
      await l.waitDown(mark, (m): m is typeof m => m.type === 'ack' && m.ackedDseq > acked, `an ack above ${acked}`);
    }
    expect(await w.effects(id)).toEqual(range(1, 30));
    expect((await w.locker(id)).acked_dseq).toBe(30);
    await l.end();
  });
}
