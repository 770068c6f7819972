/**
 * The order's life as data: every allowed change of an order's state (ORDER_TRANSITIONS) and of a
 * parcel's state (PARCEL_STEPS), each row with a stable id. `decide.ts` picks the one row that
 * matches, `apply.ts` carries it out; docs/lifecycle.md is rendered from these tables.
 *
 * Order rows are chosen by (event, state before, guard on the parcel census after the event's
 * parcel step). Conditions that are not about parcels (the storage deadline has passed, the locker
 * applied the revocation) are what raises the event in the first place; the row's `when` says so.
 */
import { OrderState, ParcelState, ResultCode } from '../../../shared/src/enums.js';
import type { Census } from './census.js';

export type LifecycleEvent =
  | 'order.create'
  | 'order.update'
  | 'position.cancel'
  | 'storage.extend'
  | 'reservation.release'
  | 'reservation.displaced'
  | 'parcel.loaded'
  | 'parcel.received'
  | 'parcel.returned'
  | 'storage.expired'
  | 'revocation.confirmed'
  | 'revocation.timedOut'
  | 'code.regenerate'
  | 'return.start'
  | 'handover.request';

/** What raises each event, for the docs. */
export const EVENT_SOURCES: Record<LifecycleEvent, string> = {
  'order.create': 'API: smartorder/create, order/create',
  'order.update': 'API: order/update',
  'position.cancel': 'API: order/place/cancel',
  'storage.extend': 'API: order/extension',
  'reservation.release': 'clock: reservation sweep, after dateDelivery (locker time) plus the grace',
  'reservation.displaced': "locker: a load into a cell reserved for this order's pending parcel",
  'parcel.loaded': "locker fact parcel.loaded (a courier's load), or cell.inventoried found (a technician recorded the parcel in a flagged cell: docs/agent.md, Service menu)",
  'parcel.received': 'locker fact parcel.received (a customer took it)',
  'parcel.returned': 'locker fact parcel.returned (a courier collected it)',
  'storage.expired': 'clock: holdUntil has passed; sandbox: storage runs out now (docs/sandbox.md)',
  'revocation.confirmed': "clock or locker ack: the locker applied the upsert that revoked the code",
  'revocation.timedOut': 'clock: RETURN_CONFIRM_SECONDS after entering 6 without confirmation',
  'code.regenerate': 'operator: POST /operator/orders/{orderId}/code (the customer lost the code, or it leaked)',
  'return.start': 'operator: POST /operator/orders/{orderId}/return (storage ends early: refused, damaged, asked by the marketplace)',
  'handover.request': "operator: POST /operator/orders/{orderId}/handover (the customer is at the locker and the code does not work)",
};

/** Predicates on the census of the order's parcels after the event's parcel step. */
export const GUARDS = {
  always: () => true,
  'pe>0': (c: Census) => c.pending > 0,
  'pe=0 ∧ lo>0': (c: Census) => c.pending === 0 && c.loaded > 0,
  'pe+lo>0': (c: Census) => c.pending + c.loaded > 0,
  'pe+lo=0 ∧ ar>0': (c: Census) => c.pending + c.loaded === 0 && c.awaitingReturn > 0,
  'pe+lo+ar=0': (c: Census) => c.pending + c.loaded + c.awaitingReturn === 0,
} as const satisfies Record<string, (c: Census) => boolean>;
export type GuardName = keyof typeof GUARDS;

/**
 * What a row does besides writing the state (every row also writes the order's upsert to its
 * locker as the change's first command, and sets state_changed_at exactly when the state changes):
 * - issueCode: a new pick-up code, unique at the locker; user-access-code to the marketplace;
 * - startClock: loaded_at = now, holdUntil = storage deadline; expiration-date-changes;
 * - extendClock: holdUntil + 72 h, then past non-working days; expiration-date-changes;
 * - revokeCode: the pick-up code is cleared;
 * - returnLoaded: every loaded parcel becomes awaiting return;
 * - notifyAwaitingReturn: order-status 7 for every parcel awaiting return;
 * - rememberRevocation: the cseq of this upsert is what the locker must apply before 6 -> 7;
 * - forgetRevocation: that record is dropped (the order left 6).
 */
export type EffectName =
  | 'issueCode'
  | 'startClock'
  | 'extendClock'
  | 'revokeCode'
  | 'returnLoaded'
  | 'notifyAwaitingReturn'
  | 'rememberRevocation'
  | 'forgetRevocation';

export interface OrderTransition {
  id: string;
  event: LifecycleEvent;
  /** States before; 'none' when the order does not exist yet. */
  from: readonly OrderState[] | 'none';
  guard: GuardName;
  to: OrderState | 'same';
  effects: readonly EffectName[];
  note: string;
}

const { New, ClientReceived, CourierLoaded, CourierPickedUp, Cancelled, ReturnInitiated, AwaitingReturn } = OrderState;
const ENTER_LOADED: readonly EffectName[] = ['issueCode', 'startClock'];
const ENTER_RETURN: readonly EffectName[] = ['revokeCode', 'rememberRevocation'];

/** Rows shared by the three locker facts: the order follows its parcels. */
function factRows(prefix: string, event: 'parcel.loaded' | 'parcel.received' | 'parcel.returned'): OrderTransition[] {
  const rows: OrderTransition[] = [
    { id: `${prefix}1`, event, from: [New], guard: 'pe=0 ∧ lo>0', to: CourierLoaded, effects: ENTER_LOADED, note: 'every remaining position is in the locker' },
    { id: `${prefix}2`, event, from: [New], guard: 'pe>0', to: 'same', effects: [], note: 'positions still to come' },
    { id: `${prefix}3`, event, from: [ClientReceived, CourierLoaded, CourierPickedUp, Cancelled, ReturnInitiated, AwaitingReturn], guard: 'pe+lo>0', to: 'same', effects: [], note: 'something still for the customer' },
    { id: `${prefix}4`, event, from: [New, ClientReceived, CourierLoaded, CourierPickedUp, Cancelled], guard: 'pe+lo=0 ∧ ar>0', to: ReturnInitiated, effects: ENTER_RETURN, note: 'only parcels to return are left in the locker' },
    { id: `${prefix}5`, event, from: [ReturnInitiated, AwaitingReturn], guard: 'pe+lo=0 ∧ ar>0', to: 'same', effects: [], note: 'already returning' },
  ];
  if (event === 'parcel.loaded') {
    rows.push({ id: `${prefix}6`, event, from: [New, ClientReceived, CourierLoaded, CourierPickedUp, Cancelled, ReturnInitiated, AwaitingReturn], guard: 'pe+lo+ar=0', to: 'same', effects: [], note: 'unreachable: the loaded parcel is in the locker' });
  } else {
    const terminal = event === 'parcel.received' ? ClientReceived : CourierPickedUp;
    rows.push(
      { id: `${prefix}6`, event, from: [New, CourierLoaded, ReturnInitiated, AwaitingReturn], guard: 'pe+lo+ar=0', to: terminal, effects: ['revokeCode', 'forgetRevocation'], note: 'nothing of the order is left in the locker' },
      { id: `${prefix}7`, event, from: [ClientReceived, CourierPickedUp, Cancelled], guard: 'pe+lo+ar=0', to: 'same', effects: [], note: 'already terminal' },
    );
  }
  return rows;
}

export const ORDER_TRANSITIONS: readonly OrderTransition[] = [
  { id: 'C1', event: 'order.create', from: 'none', guard: 'always', to: New, effects: [], note: 'parcels pending; smartorder/create reserves cells' },
  { id: 'U1', event: 'order.update', from: [New], guard: 'always', to: 'same', effects: [], note: 'data replaced, parcels added; a move sends order.remove to the old locker' },
  { id: 'X1', event: 'position.cancel', from: [New], guard: 'pe>0', to: 'same', effects: [], note: 'positions still to come' },
  { id: 'X2', event: 'position.cancel', from: [New], guard: 'pe=0 ∧ lo>0', to: CourierLoaded, effects: ENTER_LOADED, note: 'the last unloaded position was cancelled' },
  { id: 'X3', event: 'position.cancel', from: [New], guard: 'pe+lo+ar=0', to: Cancelled, effects: ['revokeCode'], note: 'nothing of the order is in the locker' },
  { id: 'X4', event: 'position.cancel', from: [New], guard: 'pe+lo=0 ∧ ar>0', to: ReturnInitiated, effects: ENTER_RETURN, note: 'no position left, cancelled parcels in the locker' },
  { id: 'X6', event: 'position.cancel', from: [CourierLoaded], guard: 'pe+lo>0', to: 'same', effects: [], note: 'parcels still for the customer' },
  { id: 'X7', event: 'position.cancel', from: [CourierLoaded], guard: 'pe+lo=0 ∧ ar>0', to: ReturnInitiated, effects: ENTER_RETURN, note: 'the last loaded position was cancelled' },
  { id: 'E1', event: 'storage.extend', from: [CourierLoaded], guard: 'always', to: 'same', effects: ['extendClock'], note: 'from the current holdUntil' },
  { id: 'RR1', event: 'reservation.release', from: [New], guard: 'always', to: 'same', effects: [], note: 'pending parcels lose their cells' },
  { id: 'D1', event: 'reservation.displaced', from: [New, CourierLoaded, ReturnInitiated, AwaitingReturn], guard: 'always', to: 'same', effects: [], note: 'the displaced pending parcels get other cells, or none' },
  ...factRows('L', 'parcel.loaded'),
  ...factRows('T', 'parcel.received'),
  ...factRows('R', 'parcel.returned'),
  { id: 'SE1', event: 'storage.expired', from: [CourierLoaded], guard: 'always', to: ReturnInitiated, effects: ['returnLoaded', ...ENTER_RETURN], note: 'what the customer did not take is to be returned' },
  { id: 'RC1', event: 'revocation.confirmed', from: [ReturnInitiated], guard: 'always', to: AwaitingReturn, effects: ['revokeCode', 'notifyAwaitingReturn', 'forgetRevocation'], note: 'the locker no longer accepts the code' },
  { id: 'RC2', event: 'revocation.timedOut', from: [ReturnInitiated], guard: 'always', to: AwaitingReturn, effects: ['revokeCode', 'notifyAwaitingReturn', 'forgetRevocation'], note: 'at most RETURN_CONFIRM_SECONDS after entering 6' },
  { id: 'CR1', event: 'code.regenerate', from: [CourierLoaded], guard: 'always', to: 'same', effects: ['issueCode'], note: 'the new code replaces the old at the locker; user-access-code with it' },
  { id: 'HO1', event: 'handover.request', from: [CourierLoaded], guard: 'always', to: 'same', effects: [], note: "an order.handover command after the upsert opens the cells for the customer; the locker's parcel.received facts then move the order (T rows), to 2 once nothing is left" },
  { id: 'OR1', event: 'return.start', from: [CourierLoaded], guard: 'always', to: ReturnInitiated, effects: ['returnLoaded', ...ENTER_RETURN], note: 'what is in the locker is to be returned, as when storage expires' },
];

/** The API operations that are refused unless the order is in one of the row's states. */
export const STATE_REFUSALS = {
  'order.update': { code: ResultCode.PostOperationWrongState, message: 'Post operation wrong state' },
  'storage.extend': { code: ResultCode.OperationBadState, message: 'Operation have bad state' },
  'code.regenerate': { code: ResultCode.OperationBadState, message: 'Operation have bad state' },
  'return.start': { code: ResultCode.OperationBadState, message: 'Operation have bad state' },
  'handover.request': { code: ResultCode.OperationBadState, message: 'Operation have bad state' },
} as const;

/** A parcel's state before a step; 'absent' when the order does not have the barcode yet. */
export type ParcelFrom = ParcelState | 'absent';

/** Facts about the step that select between parcel rows. */
export type ParcelCondition = 'orderNew' | 'orderNotNew' | 'sameCell' | 'otherCell';

export interface ParcelStep {
  id: string;
  event: LifecycleEvent;
  from: readonly ParcelFrom[];
  when?: ParcelCondition;
  /** 'same': the state stays (only the cell changes, or nothing at all); 'refused': the request fails. */
  to: ParcelState | 'same' | 'refused';
  /** The parcel's cell after the step. */
  cell: 'clear' | 'keep' | 'event' | 'allocated' | 'none';
  refusal?: { code: ResultCode; message: string };
  /** Kept for operators (locker_alerts) when the fact did not fit what the cloud expected. */
  alert?: { kind: string; severity: 'info' | 'warning' };
  note: string;
}

const { Pending, Loaded, Cancelled: Ca, AwaitingReturn: Ar, Received, Returned } = ParcelState;

function takeSteps(prefix: string, event: 'parcel.received' | 'parcel.returned', next: ParcelState): ParcelStep[] {
  const others = [Pending, Loaded, Ca, Ar, Received, Returned].filter((s) => s !== next && s !== Loaded && s !== Ar);
  return [
    { id: `${prefix}p1`, event, from: [Loaded, Ar], to: next, cell: 'keep', note: 'taken out of its cell' },
    { id: `${prefix}p2`, event, from: others, to: next, cell: 'keep', alert: { kind: 'fact.not_in_locker', severity: 'warning' }, note: 'the cloud did not have it in the locker; the fact wins' },
    { id: `${prefix}p3`, event, from: [next], to: 'same', cell: 'keep', note: 'the same fact again: nothing changes' },
  ];
}

export const PARCEL_STEPS: readonly ParcelStep[] = [
  { id: 'Cp1', event: 'order.create', from: ['absent'], to: Pending, cell: 'allocated', note: 'reserved cell (smartorder/create) or none' },
  { id: 'Up1', event: 'order.update', from: ['absent'], to: Pending, cell: 'allocated', note: 'a new barcode; with reservation the pending parcels are allocated again' },
  { id: 'Xp1', event: 'position.cancel', from: [Pending], to: Ca, cell: 'clear', note: 'its reservation is released' },
  { id: 'Xp2', event: 'position.cancel', from: [Loaded], to: Ar, cell: 'keep', note: 'a courier collects it' },
  { id: 'Xp3', event: 'position.cancel', from: [Ca, Ar], to: 'refused', cell: 'keep', refusal: { code: ResultCode.PackagingCanceled, message: 'Packaging canceled' }, note: 'already cancelled' },
  { id: 'Xp4', event: 'position.cancel', from: [Received, Returned], to: 'refused', cell: 'keep', refusal: { code: ResultCode.PackagingLoadedOrIssued, message: 'Packaging loaded or issued' }, note: 'already taken out' },
  { id: 'RRp1', event: 'reservation.release', from: [Pending], to: 'same', cell: 'clear', note: 'the reservation lapsed' },
  { id: 'Dp1', event: 'reservation.displaced', from: [Pending], to: 'same', cell: 'allocated', note: 'allocated again among the free cells, or none' },
  { id: 'Lp1', event: 'parcel.loaded', from: [Pending], when: 'orderNew', to: Loaded, cell: 'event', note: 'loaded as expected' },
  { id: 'Lp2', event: 'parcel.loaded', from: [Pending], when: 'orderNotNew', to: Ar, cell: 'event', note: 'the order no longer expects it' },
  { id: 'Lp3', event: 'parcel.loaded', from: [Loaded, Ar], when: 'sameCell', to: 'same', cell: 'keep', note: 'the same fact again: nothing changes' },
  { id: 'Lp4', event: 'parcel.loaded', from: [Loaded, Ar], when: 'otherCell', to: 'same', cell: 'event', note: 'moved to another cell' },
  { id: 'Lp5', event: 'parcel.loaded', from: [Ca, Received, Returned], to: Ar, cell: 'event', alert: { kind: 'fact.unexpected_load', severity: 'info' }, note: 'the order no longer expects it' },
  { id: 'Lp6', event: 'parcel.loaded', from: ['absent'], to: Ar, cell: 'event', alert: { kind: 'fact.unknown_parcel', severity: 'warning' }, note: 'a barcode the order does not have is added, to be returned' },
  ...takeSteps('T', 'parcel.received', Received),
  ...takeSteps('R', 'parcel.returned', Returned),
  { id: 'SEp1', event: 'storage.expired', from: [Loaded], to: Ar, cell: 'keep', note: 'the customer did not take it in time' },
  { id: 'ORp1', event: 'return.start', from: [Loaded], to: Ar, cell: 'keep', note: 'an operator ended its storage' },
];
