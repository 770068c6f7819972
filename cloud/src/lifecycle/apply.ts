/**
 * The one way an order changes: `applyTransition` checks the caller's parcel step against the
 * parcel table, picks the order row (decide.ts), carries out the row's effects, and writes it all
 * in the caller's locker transaction: the rows (repository.ts), the order's upsert to its locker
 * as the change's first command, the caller's further commands, and the notifications the change
 * owes (outbox), and the transition itself (`order_transitions`). The caller must hold every locker
 * its commands go to.
 */
import { OrderState, ParcelState } from '../../../shared/src/enums.js';
import type { OrderRow, ParcelRow } from '../db/schema.js';
import type { Tx } from '../db/transaction.js';
import { calendarOf } from '../lockers/working-days.js';
import { extendedDeadline, storageDeadline } from '../orders/deadline.js';
import { upsertCommand, type ReservationRule } from '../orders/intent.js';
import { recordChange, type LockerCommandDraft, type NotificationDraft } from '../outbox/record-change.js';
import type { RandomSource } from '../random.js';
import { census } from './census.js';
import { decideOrder, IllegalTransition, parcelMoveAllowed, parcelStep } from './decide.js';
import { expirationDateChangesNotification, orderStatusNotification, userAccessCodeNotification } from './notifications.js';
import { stepParcel } from './parcel-step.js';
import { newPickupCode } from './pickup-code.js';
import { forgetRevocation, insertOrder, recordTransition, rememberRevocation, saveOrder } from './repository.js';
import type { LifecycleEvent, OrderTransition } from './table.js';
import { findMarketplace } from '../repositories/accounts.js';
import type { Locker } from '../repositories/lockers.js';

export interface LifecycleDeps {
  random: RandomSource;
  pickupCodeLength: number;
  /** The X-Request-Id of the API call making the change: recorded with its notifications. */
  requestId?: string;
}

export interface TransitionRequest {
  event: LifecycleEvent;
  /** The order as read under the lock; null for a new order. */
  before: OrderRow | null;
  /** The order with the caller's data changes (number, locker, invoice...); state, code and clock columns come from the row. */
  order: OrderRow;
  /** The parcels as read (copies, untouched by the caller's step). */
  parcelsBefore: readonly ParcelRow[];
  /** Every parcel of the order after the caller's parcel step (new ones included). */
  parcels: readonly ParcelRow[];
  /** The order's locker (after a move: the new one). */
  locker: Locker;
  at: number;
  /** Owed by the parcel step itself (order-status of a fact); sent before the row's own. */
  notifications?: readonly NotificationDraft[];
  /** Further commands after the order's upsert (order.remove to a previous locker). */
  commands?: readonly LockerCommandDraft[];
  /** When the order may hold reservations: the upsert then carries `loadableUntil`. */
  reservation?: ReservationRule;
  /** storage.extend: hours added (default: the extension operation's 72). */
  extensionHours?: number;
}

export interface Applied {
  rule: OrderTransition;
  order: OrderRow;
  parcels: ParcelRow[];
  upsertCseq: number;
  /** The cseqs of the caller's further commands, in their order. */
  commandCseqs: number[];
  notifications: NotificationDraft[];
  /** Every locker the change recorded commands for. */
  commandLockers: number[];
  /** Those lockers' occupancy versions after the change. */
  occupancyVersions: ReadonlyMap<number, number>;
}

function checkParcelMoves(event: LifecycleEvent, before: readonly ParcelRow[], after: readonly ParcelRow[]): void {
  const was = new Map(before.map((p) => [p.barcode, p.state as ParcelState]));
  for (const p of after) {
    const from = was.get(p.barcode) ?? 'absent';
    if (from !== p.state && !parcelMoveAllowed(event, from, p.state as ParcelState)) {
      throw new IllegalTransition(`${event} may not move parcel ${p.barcode} of order ${p.order_id} from ${from} to ${p.state}`);
    }
  }
}

/** The parcels whose state changed, for the transition's record. */
function parcelMoves(before: readonly ParcelRow[], after: readonly ParcelRow[]): { barcode: string; from: string | null; to: string }[] {
  const was = new Map(before.map((p) => [p.barcode, p.state]));
  return after.filter((p) => was.get(p.barcode) !== p.state).map((p) => ({ barcode: p.barcode, from: was.get(p.barcode) ?? null, to: p.state }));
}

/** `deps` issue pick-up codes; callers whose events never enter 3 (the storage clock) pass none. */
export async function applyTransition(tx: Tx, deps: LifecycleDeps | undefined, req: TransitionRequest): Promise<Applied> {
  const { at, locker } = req;
  const from = req.before ? (req.before.state as OrderState) : null;
  if (req.before && req.order.state !== req.before.state) throw new IllegalTransition(`order ${req.order.id}: the state is the lifecycle's to change`);
  checkParcelMoves(req.event, req.parcelsBefore, req.parcels);
  const rule = decideOrder(req.event, from, census(req.parcels));
  const to = rule.to === 'same' ? from! : rule.to;
  const order: OrderRow = { ...req.order, state: to, updated_at: at, ...(to !== from ? { state_changed_at: at } : {}) };
  let parcels = [...req.parcels];
  const notifications = [...(req.notifications ?? [])];

  for (const effect of rule.effects) {
    switch (effect) {
      case 'issueCode': {
        if (!deps) throw new IllegalTransition(`${rule.id} issues a pick-up code, and the caller cannot`);
        const { code, hash } = await newPickupCode(tx, deps.random, locker.id, deps.pickupCodeLength);
        order.pickup_code_hash = hash;
        notifications.push(userAccessCodeNotification(order, locker.id, code));
        break;
      }
      case 'startClock': {
        const marketplace = await findMarketplace(tx, order.marketplace_id);
        if (!marketplace) throw new Error(`order ${order.id}: marketplace ${order.marketplace_id} is unknown`);
        order.loaded_at = at;
        order.hold_until = storageDeadline(at, marketplace.storagePeriodHours, calendarOf(locker));
        notifications.push(expirationDateChangesNotification(order, at, order.hold_until, locker.timezone));
        break;
      }
      case 'extendClock': {
        if (order.hold_until === null) throw new IllegalTransition(`order ${order.id}: no storage deadline to extend`);
        order.hold_until = extendedDeadline(order.hold_until, calendarOf(locker), req.extensionHours);
        notifications.push(expirationDateChangesNotification(order, at, order.hold_until, locker.timezone));
        break;
      }
      case 'revokeCode':
        order.pickup_code_hash = null;
        break;
      case 'returnLoaded':
        parcels = parcels.map((p) => (p.state === ParcelState.Loaded ? stepParcel(p, parcelStep(req.event, p.state), at) : p));
        break;
      case 'notifyAwaitingReturn':
        for (const p of parcels) {
          if (p.state === ParcelState.AwaitingReturn) notifications.push(orderStatusNotification(order, p.barcode, OrderState.AwaitingReturn, at, locker.timezone));
        }
        break;
      case 'rememberRevocation':
      case 'forgetRevocation':
        break; // after the upsert is recorded: its cseq is what is remembered
    }
  }

  if (req.before) await saveOrder(tx, req.before, order, req.parcelsBefore, parcels);
  else await insertOrder(tx, order, parcels);
  const recorded = await recordChange(tx, {
    at,
    commands: [upsertCommand(order, parcels, req.reservation), ...(req.commands ?? [])],
    notifications,
    ...(deps?.requestId !== undefined ? { requestId: deps.requestId } : {}),
  });
  const upsertCseq = recorded.cseqs[0]!;
  if (rule.effects.includes('rememberRevocation')) await rememberRevocation(tx, order, upsertCseq, at);
  if (rule.effects.includes('forgetRevocation') && from === OrderState.ReturnInitiated) await forgetRevocation(tx, order.id);
  await recordTransition(tx, { order_id: order.id, at, rule: rule.id, event: req.event, from_state: from, to_state: to, parcels: JSON.stringify(parcelMoves(req.parcelsBefore, parcels)) }, !req.before);
  const commandLockers = [order.locker_id, ...(req.commands ?? []).map((c) => c.lockerId)];
  return { rule, order, parcels, upsertCseq, commandCseqs: recorded.cseqs.slice(1), notifications, commandLockers, occupancyVersions: recorded.occupancyVersions };
}
