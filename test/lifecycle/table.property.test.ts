/**
 * Random event sequences walked through the lifecycle tables (pure: decide.ts and table.ts, with a
 * small in-memory order): exactly one row applies at every step, no illegal state is reachable,
 * and the contract's state table holds.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { OrderState, ParcelState, ResultCode } from '../../shared/src/enums.js';
import { census } from '../../cloud/src/lifecycle/census.js';
import { allowedFrom, decideOrder, parcelStep } from '../../cloud/src/lifecycle/decide.js';
import { ORDER_TRANSITIONS, type LifecycleEvent, type ParcelCondition, type ParcelStep } from '../../cloud/src/lifecycle/table.js';

interface Parcel {
  barcode: string;
  state: ParcelState;
  cell: number | null;
}
interface Order {
  state: OrderState;
  parcels: Parcel[];
  code: boolean;
  holdUntil: boolean;
  revocation: boolean;
  codesIssued: number;
  /** Codes an operator issued again while the order stayed in 3. */
  codesReissued: number;
}

type Step =
  | { kind: 'cancel' | 'received' | 'returned'; parcel: number }
  | { kind: 'load'; parcel: number; cell: number }
  | { kind: 'update' | 'extend' | 'release' | 'displace' | 'expire' | 'confirm' | 'timeout' | 'newCode' | 'startReturn' | 'handOver' };

/** Rows no sequence of events can reach. */
const EXPECTED_UNREACHABLE = new Set(['L6']);
const hit = new Set<string>();

function stepped(p: Parcel, step: ParcelStep, cell?: number): Parcel {
  const state = step.to === 'same' || step.to === 'refused' ? p.state : step.to;
  if (step.cell === 'clear') return { ...p, state, cell: null };
  if (step.cell === 'event') return { ...p, state, cell: cell! };
  return { ...p, state };
}

/** Picks the order row for the event and carries out its effects on the model. */
function apply(o: Order, event: LifecycleEvent, parcels: Parcel[]): void {
  const before = event === 'order.create' ? null : o.state;
  const row = decideOrder(event, before, census(parcels));
  hit.add(row.id);
  const to = row.to === 'same' ? o.state : row.to;
  if (to === OrderState.AwaitingReturn && before !== OrderState.AwaitingReturn) expect(before, 'Awaiting return only from Return initiated').toBe(OrderState.ReturnInitiated);
  o.parcels = parcels;
  o.state = to;
  for (const effect of row.effects) {
    if (effect === 'issueCode') {
      o.code = true;
      o.codesIssued++;
    }
    if (effect === 'startClock') o.holdUntil = true;
    if (effect === 'revokeCode') o.code = false;
    if (effect === 'returnLoaded') o.parcels = o.parcels.map((p) => (p.state === ParcelState.Loaded ? stepped(p, parcelStep(event, p.state)) : p));
    if (effect === 'rememberRevocation') o.revocation = true;
    if (effect === 'forgetRevocation') o.revocation = false;
  }
  if (to === OrderState.CourierLoaded && before !== OrderState.CourierLoaded) expect(row.effects).toEqual(expect.arrayContaining(['issueCode', 'startClock']));
}

/** Runs one event the way the cloud's callers do; returns a refusal code, or null. */
function run(o: Order, s: Step): number | null {
  const at = (i: number): Parcel | undefined => o.parcels[i % (o.parcels.length + 1)];
  const replace = (p: Parcel): Parcel[] => (o.parcels.some((q) => q.barcode === p.barcode) ? o.parcels.map((q) => (q.barcode === p.barcode ? p : q)) : [...o.parcels, p]);
  switch (s.kind) {
    case 'cancel': {
      const p = at(s.parcel);
      if (!p) return ResultCode.PackagingNotFound;
      const step = parcelStep('position.cancel', p.state);
      if (step.refusal) return step.refusal.code;
      expect([OrderState.New, OrderState.CourierLoaded], 'cancel goes through only in 0 and 3').toContain(o.state);
      apply(o, 'position.cancel', replace(stepped(p, step)));
      return null;
    }
    case 'update': {
      if (!allowedFrom('order.update', o.state)) return ResultCode.PostOperationWrongState;
      expect(o.state, 'update only in 0').toBe(OrderState.New);
      const added = stepped({ barcode: `P${o.parcels.length}`, state: ParcelState.Pending, cell: null }, parcelStep('order.update', 'absent'));
      apply(o, 'order.update', [...o.parcels, { ...added, state: ParcelState.Pending }]);
      return null;
    }
    case 'extend':
      if (!allowedFrom('storage.extend', o.state)) return ResultCode.OperationBadState;
      expect(o.state, 'extension only in 3').toBe(OrderState.CourierLoaded);
      apply(o, 'storage.extend', o.parcels);
      return null;
    case 'newCode':
    case 'startReturn': {
      // The operator's care (operator/order-care.ts): refused like the extension outside 3.
      const event = s.kind === 'newCode' ? 'code.regenerate' : 'return.start';
      if (!allowedFrom(event, o.state)) return ResultCode.OperationBadState;
      expect(o.state, `${event} only in 3`).toBe(OrderState.CourierLoaded);
      const issued = o.codesIssued;
      apply(o, event, o.parcels);
      if (event === 'code.regenerate') {
        expect(o.codesIssued, 'a new code is issued').toBe(issued + 1);
        o.codesReissued++;
      }
      return null;
    }
    case 'handOver': {
      // The operator's handover (operator/order-handover.ts): only in 3, the state stays; the parcels move by the locker's facts.
      if (!allowedFrom('handover.request', o.state)) return ResultCode.OperationBadState;
      expect(o.state, 'handover only in 3').toBe(OrderState.CourierLoaded);
      const issued = o.codesIssued;
      apply(o, 'handover.request', o.parcels);
      expect(o.state).toBe(OrderState.CourierLoaded);
      expect(o.codesIssued, 'no new code').toBe(issued);
      return null;
    }
    case 'release': {
      if (o.state !== OrderState.New || !o.parcels.some((p) => p.state === ParcelState.Pending && p.cell !== null)) return null;
      apply(o, 'reservation.release', o.parcels.map((p) => (p.state === ParcelState.Pending ? stepped(p, parcelStep('reservation.release', p.state)) : p)));
      return null;
    }
    case 'displace': {
      const reserved = o.parcels.find((p) => p.state === ParcelState.Pending && p.cell !== null);
      if (!reserved || o.state === OrderState.ClientReceived || o.state === OrderState.CourierPickedUp || o.state === OrderState.Cancelled) return null;
      apply(o, 'reservation.displaced', replace({ ...stepped(reserved, parcelStep('reservation.displaced', reserved.state)), cell: null }));
      return null;
    }
    case 'load': {
      const p = at(s.parcel);
      const conditions: ParcelCondition[] = [o.state === OrderState.New ? 'orderNew' : 'orderNotNew', p?.cell === s.cell ? 'sameCell' : 'otherCell'];
      const step = parcelStep('parcel.loaded', p ? p.state : 'absent', conditions);
      if (step.to === 'same' && step.cell === 'keep') return null;
      apply(o, 'parcel.loaded', replace(stepped(p ?? { barcode: `X${o.parcels.length}`, state: ParcelState.Pending, cell: null }, step, s.cell)));
      return null;
    }
    case 'received':
    case 'returned': {
      const p = at(s.parcel);
      if (!p) return null; // an unknown barcode changes no order
      const event = s.kind === 'received' ? 'parcel.received' : 'parcel.returned';
      const step = parcelStep(event, p.state);
      if (step.to === 'same') return null;
      apply(o, event, replace(stepped(p, step)));
      return null;
    }
    case 'expire':
      if (o.state === OrderState.CourierLoaded) apply(o, 'storage.expired', o.parcels);
      return null;
    case 'confirm':
    case 'timeout':
      if (o.state === OrderState.ReturnInitiated) apply(o, s.kind === 'confirm' ? 'revocation.confirmed' : 'revocation.timedOut', o.parcels);
      return null;
  }
}

function violations(o: Order): string[] {
  const c = census(o.parcels);
  const out: string[] = [];
  const check = (ok: boolean, what: string): void => {
    if (!ok) out.push(what);
  };
  check((Object.values(OrderState) as number[]).includes(o.state), 'a state of the enum');
  check(o.code === (o.state === OrderState.CourierLoaded), 'a pick-up code exactly in 3');
  check(o.revocation === (o.state === OrderState.ReturnInitiated), 'a remembered revocation exactly in 6');
  switch (o.state) {
    case OrderState.New:
      check(c.pending > 0, '0 has a pending parcel');
      break;
    case OrderState.CourierLoaded:
      check(c.pending === 0 && c.loaded > 0 && o.holdUntil, '3: nothing pending, something loaded, a deadline');
      break;
    case OrderState.ReturnInitiated:
    case OrderState.AwaitingReturn:
      check(c.pending + c.loaded === 0 && c.awaitingReturn > 0, '6 and 7: only parcels to return are in the locker');
      break;
    case OrderState.ClientReceived:
    case OrderState.CourierPickedUp:
    case OrderState.Cancelled:
      check(c.pending + c.loaded + c.awaitingReturn === 0, '2, 4 and 5: nothing in the locker or to come');
  }
  for (const p of o.parcels) {
    if (p.state === ParcelState.Loaded || p.state === ParcelState.AwaitingReturn) check(p.cell !== null, `${p.barcode} in the locker has a cell`);
    if (p.state === ParcelState.Cancelled) check(p.cell === null, `${p.barcode} cancelled holds no cell`);
  }
  return out;
}

const parcelIndex = fc.nat({ max: 5 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('cancel' as const), parcel: parcelIndex }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('load' as const), parcel: parcelIndex, cell: fc.integer({ min: 1, max: 4 }) }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constantFrom('received' as const, 'returned' as const), parcel: parcelIndex }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constantFrom('update' as const, 'extend' as const, 'release' as const, 'displace' as const, 'newCode' as const, 'startReturn' as const, 'handOver' as const) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constantFrom('expire' as const, 'confirm' as const, 'timeout' as const) }), weight: 2 },
);
const orderArb = fc.array(fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }), { minLength: 1, maxLength: 4 });

describe('the lifecycle tables', () => {
  afterAll(() => {
    const all = ORDER_TRANSITIONS.map((r) => r.id);
    expect(all.filter((id) => !hit.has(id) && !EXPECTED_UNREACHABLE.has(id))).toEqual([]);
    expect([...EXPECTED_UNREACHABLE].filter((id) => hit.has(id))).toEqual([]);
  });

  it('keep every order legal through random events, with exactly one row per step', () => {
    fc.assert(
      fc.property(orderArb, fc.array(stepArb, { minLength: 1, maxLength: 40 }), (cells, steps) => {
        const o: Order = { state: OrderState.New, parcels: [], code: false, holdUntil: false, revocation: false, codesIssued: 0, codesReissued: 0 };
        const created = cells.map((cell, i) => ({ barcode: `P${i}`, state: ParcelState.Pending, cell }));
        for (const p of created) expect(parcelStep('order.create', 'absent').to).toBe(p.state);
        apply(o, 'order.create', created);
        expect(violations(o)).toEqual([]);
        let entries3 = 0;
        for (const s of steps) {
          const was = o.state;
          run(o, s);
          if (o.state === OrderState.CourierLoaded && was !== OrderState.CourierLoaded) entries3++;
          expect(violations(o), `after ${JSON.stringify(s)} from ${was}: ${JSON.stringify(o)}`).toEqual([]);
        }
        expect(o.codesIssued - o.codesReissued, 'one code per entry into 3, besides those issued again').toBe(entries3);
        expect(entries3, 'Courier loaded is entered at most once').toBeLessThanOrEqual(1);
      }),
      { seed: 20300304, numRuns: 2000, endOnFailure: true },
    );
  });

  it('refuses update outside 0 and extension outside 3, as the contract says', () => {
    for (const s of Object.values(OrderState)) {
      expect(allowedFrom('order.update', s)).toBe(s === OrderState.New);
      expect(allowedFrom('storage.extend', s)).toBe(s === OrderState.CourierLoaded);
    }
  });

  it('remembers the revocation on every way into 6 and forgets it on every way out', () => {
    for (const r of ORDER_TRANSITIONS) {
      const from = r.from === 'none' ? [] : r.from;
      if (r.to === OrderState.ReturnInitiated) expect(r.effects, r.id).toContain('rememberRevocation');
      if (from.includes(OrderState.ReturnInitiated) && r.to !== 'same' && r.to !== OrderState.ReturnInitiated) expect(r.effects, r.id).toContain('forgetRevocation');
      if (r.to === OrderState.CourierLoaded) expect(r.effects, r.id).toEqual(['issueCode', 'startClock']);
    }
  });
});
