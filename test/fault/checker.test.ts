/**
 * The fault suite's checker on small records made by hand: a consistent run passes, and each
 * kind of anomaly the suite claims to catch is caught and counted where the report says.
 */
import { describe, expect, it } from 'vitest';
import type { OrderIntent } from '../../shared/src/protocol.js';
import { digest, type AppliedLine } from './child-support.js';
import { type RunRecord, anomalyTotal, check } from './checker.js';

const ORDER = '00000000-0000-4000-8000-000000000001';
const CODE_HASH = 'a'.repeat(64);

function intent(state: number, parcel: OrderIntent['parcels'][number]): OrderIntent {
  return {
    orderId: ORDER,
    externalId: 'ext-1',
    number: null,
    marketplaceId: 'shop-a',
    state: state as OrderIntent['state'],
    dateDelivery: '2030-03-04',
    holdUntil: state === 3 ? 2_000 : null,
    pickupCodeHash: state === 3 ? CODE_HASH : null,
    parcels: [parcel],
  };
}

/** A locker where a parcel was reserved, loaded and picked up; the marketplace told of each step. */
function consistentRun(): RunRecord {
  const reserved = intent(0, { barcode: 'ext-1-P1', additionalBarcodes: [], dimension: null, state: 'pending', cellId: 2 });
  const loaded = intent(3, { barcode: 'ext-1-P1', additionalBarcodes: [], dimension: null, state: 'loaded', cellId: 2 });
  const received = { ...intent(2, { barcode: 'ext-1-P1', additionalBarcodes: [], dimension: null, state: 'received', cellId: 2 }), pickupCodeHash: null, holdUntil: 2_000 };
  const commands = [reserved, loaded, received].map((order, i) => ({ cseq: i + 1, body: JSON.stringify({ type: 'order.upsert', order }), created_at: 100 + i }));
  const applied: AppliedLine[] = commands.map((c) => ({
    pid: 1,
    kind: 'command',
    cseq: c.cseq,
    status: 'applied',
    type: 'order.upsert',
    digest: digest({ ...(JSON.parse(c.body) as object), cseq: c.cseq, at: c.created_at }),
  }));
  const outbox = [
    { dseq: 1, at: 500, type: 'parcel.loaded' as const, orderId: ORDER, barcode: 'ext-1-P1', cellId: 2, grantId: 'g-1' },
    { dseq: 2, at: 600, type: 'parcel.received' as const, orderId: ORDER, barcode: 'ext-1-P1', cellId: 2 },
  ];
  const inbox = outbox.map(({ dseq, at, ...fact }, i) => ({ dseq, type: fact.type, body: JSON.stringify(fact), occurred_at: at, received_at: 700 + i }));
  const calls = [
    { path: '/order-status', uid: 'u1', body: { id: 'ext-1', barcode: 'ext-1-P1', event_id: '3' } },
    { path: '/user-access-code', uid: 'u2', body: { id: 'ext-1', access_code: '123456' } },
    { path: '/expiration-date-changes', uid: 'u3', body: { id: 'ext-1', expire_dt: '2030-03-07T10:00:00+03:00' } },
    { path: '/order-status', uid: 'u4', body: { id: 'ext-1', barcode: 'ext-1-P1', event_id: '2' } },
  ];
  return {
    lockers: [
      {
        lockerId: 101,
        cloud: {
          nextCseq: 4,
          appliedCseq: 3,
          ackedDseq: 2,
          commands,
          inbox,
          alerts: [],
          intents: [received],
          parcels: [{ order_id: ORDER, barcode: 'ext-1-P1', state: 'received', cell_id: 2 }],
          cellFlags: new Map([
            [1, []],
            [2, []],
          ]),
        },
        agent: {
          outbox,
          ackedDseq: 2,
          appliedCseq: 3,
          orders: [{ intent: received, removed: false }],
          parcels: [{ orderId: ORDER, barcode: 'ext-1-P1', cellId: 2, state: 'received', loadedAt: 500, loadedBy: 'g-1', takenAt: 600, takenBy: null }],
          cells: [1, 2].map((id) => ({
            id,
            width: 400,
            height: 100,
            bus: 'main',
            board: 0,
            lock: id,
            cloudFlags: [],
            localFlags: [],
            flags: [],
            inLayout: true,
            door: 'closed' as const,
            doorSince: null,
            doorExpected: false,
            doorAlarm: 0,
          })),
          applied,
        },
      },
    ],
    calls,
    notifications: calls.map((c, i) => ({ id: i + 1, uid: c.uid, order_id: ORDER, delivered_at: 900 })),
    externalIds: new Map([[ORDER, 'ext-1']]),
    history: new Map([['ext-1', { barcodes: ['ext-1-P1'], cancelled: new Set<string>(), extensions: { ok: 0, unknown: 0 } }]]),
  };
}

describe('the fault suite checker', () => {
  it('finds nothing wrong in a consistent run, and counts a redelivery apart from effects', () => {
    const run = consistentRun();
    run.calls.push({ ...run.calls[0]! });
    const { counts, anomalies } = check(run);
    expect(anomalies).toEqual([]);
    expect(counts).toMatchObject({ events: 2, commands: 3, notifications: 4, calls: 5, redeliveries: 1, effectsExpected: 2 });
  });

  it('counts an event the cloud never applied as lost', () => {
    const run = consistentRun();
    const l = run.lockers[0]!;
    l.cloud.inbox = l.cloud.inbox.slice(0, 1);
    l.cloud.ackedDseq = 1;
    const { counts } = check(run);
    expect(counts.lost).toBe(1);
    expect(counts.disagreements).toBe(1);
  });

  it('counts another fact under an event number as lost', () => {
    const run = consistentRun();
    const row = run.lockers[0]!.cloud.inbox[1]!;
    row.body = JSON.stringify({ ...(JSON.parse(row.body) as object), cellId: 3 });
    expect(check(run).counts.lost).toBe(1);
  });

  it('counts a command applied twice as duplicated, and one never applied as lost', () => {
    const twice = consistentRun();
    const applied = twice.lockers[0]!.agent.applied;
    applied.splice(2, 0, { ...applied[1]! });
    expect(check(twice).counts.duplicated).toBe(1);

    const never = consistentRun();
    never.lockers[0]!.agent.applied.splice(1, 1);
    const { counts } = check(never);
    expect(counts.lost).toBe(1);
    expect(counts.outOfOrder).toBe(1);
  });

  it('counts events applied out of order', () => {
    const run = consistentRun();
    const inbox = run.lockers[0]!.cloud.inbox;
    inbox[0]!.received_at = 800;
    expect(check(run).counts.outOfOrder).toBe(1);
  });

  it('counts a disagreement on an order, a parcel and a cell', () => {
    const run = consistentRun();
    const agent = run.lockers[0]!.agent;
    agent.orders = [{ intent: intent(3, { barcode: 'ext-1-P1', additionalBarcodes: [], dimension: null, state: 'loaded', cellId: 2 }), removed: false }];
    agent.parcels = [{ ...agent.parcels[0]!, state: 'in_cell', takenAt: null }];
    const { counts, anomalies } = check(run);
    expect(counts.disagreements).toBe(3);
    expect(anomalies.join('\n')).toMatch(/order ext-1.*\n.*parcel ext-1-P1.*\n.*cell 2/);
  });

  it('counts a duplicated effect, a missing one and one without a fact', () => {
    const duplicated = consistentRun();
    duplicated.calls.push({ ...duplicated.calls[3]!, uid: 'u5' });
    duplicated.notifications.push({ id: 5, uid: 'u5', order_id: ORDER, delivered_at: 901 });
    expect(check(duplicated).counts.effectsDuplicated).toBe(1);

    const missing = consistentRun();
    missing.calls.splice(3, 1);
    const m = check(missing).counts;
    expect(m.effectsMissing).toBe(2); // no order-status 2, and a delivered row the receiver never got

    const unexplained = consistentRun();
    unexplained.calls.push({ path: '/order-status', uid: 'u6', body: { id: 'ext-1', barcode: 'ext-1-P1', event_id: '4' } });
    unexplained.notifications.push({ id: 6, uid: 'u6', order_id: ORDER, delivered_at: 902 });
    expect(check(unexplained).counts.effectsUnexplained).toBe(1);
  });

  it('counts notifications of an order that arrive out of the order they were written in, and undelivered ones', () => {
    const run = consistentRun();
    [run.calls[2], run.calls[3]] = [run.calls[3]!, run.calls[2]!];
    expect(check(run).counts.notificationsOutOfOrder).toBe(1);

    const pending = consistentRun();
    pending.notifications[3]!.delivered_at = null;
    const c = check(pending).counts;
    expect(c.undelivered).toBe(1);
    expect(anomalyTotal(c)).toBe(1);
  });
});
