/**
 * Picks the one row of the lifecycle tables that applies. Pure: the same inputs always give the
 * same row. A situation no row covers (or that two rows cover) is a defect of the table, not of
 * the request, and throws.
 */
import type { OrderState, ParcelState } from '../../../shared/src/enums.js';
import { DomainError } from '../errors.js';
import type { Census } from './census.js';
import { GUARDS, ORDER_TRANSITIONS, PARCEL_STEPS, STATE_REFUSALS, type LifecycleEvent, type OrderTransition, type ParcelCondition, type ParcelFrom, type ParcelStep } from './table.js';

export class IllegalTransition extends Error {}

function single<T extends { id: string }>(rows: readonly T[], what: string): T {
  if (rows.length === 1) return rows[0]!;
  throw new IllegalTransition(rows.length === 0 ? `no lifecycle row for ${what}` : `several lifecycle rows (${rows.map((r) => r.id).join(', ')}) for ${what}`);
}

/** The order row for `event` from `from` (null: the order does not exist yet), given the census after the parcel step. */
export function decideOrder(event: LifecycleEvent, from: OrderState | null, after: Census): OrderTransition {
  const rows = ORDER_TRANSITIONS.filter(
    (r) => r.event === event && (r.from === 'none' ? from === null : from !== null && r.from.includes(from)) && GUARDS[r.guard](after),
  );
  return single(rows, `${event} from ${from ?? 'none'} with ${JSON.stringify(after)}`);
}

/** Whether any row lets `event` start from `state` (what the API operations refuse on). */
export function allowedFrom(event: LifecycleEvent, state: OrderState): boolean {
  return ORDER_TRANSITIONS.some((r) => r.event === event && r.from !== 'none' && r.from.includes(state));
}

/** Refuses an API operation the order's state does not allow, with the operation's result code. */
export function requireAllowed(event: keyof typeof STATE_REFUSALS, state: OrderState): void {
  if (!allowedFrom(event, state)) throw new DomainError(STATE_REFUSALS[event].code, STATE_REFUSALS[event].message);
}

/** The parcel row for `event` on a parcel in `from`; `conditions` are the facts that hold. */
export function parcelStep(event: LifecycleEvent, from: ParcelFrom, conditions: readonly ParcelCondition[] = []): ParcelStep {
  const rows = PARCEL_STEPS.filter((r) => r.event === event && r.from.includes(from) && (r.when === undefined || conditions.includes(r.when)));
  return single(rows, `${event} on a parcel ${from} (${conditions.join(', ')})`);
}

/** Throws a refusal row's DomainError; returns the row otherwise. */
export function acceptedStep(step: ParcelStep): ParcelStep {
  if (step.refusal) throw new DomainError(step.refusal.code, step.refusal.message);
  return step;
}

/** Whether the parcel tables allow a parcel to go from `from` to `to` under `event`. */
export function parcelMoveAllowed(event: LifecycleEvent, from: ParcelFrom, to: ParcelState): boolean {
  return PARCEL_STEPS.some((r) => r.event === event && r.from.includes(from) && r.to === to);
}
