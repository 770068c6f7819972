/**
 * The states of a rollout and of each locker in it (docs/updates.md, "Rollouts"). A locker's
 * state is the protocol's UpdateState as its agent last reported it, or one the cloud sets:
 * `pending` (not offered yet) and `skipped` (its agent cannot install releases).
 */
import { UPDATE_STATES } from '../../../shared/src/protocol.js';

export const ROLLOUT_STATES = ['running', 'paused', 'halted', 'aborted', 'completed'] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];
/** Rollouts a locker may still get something from (or be told to stop). */
export const ACTIVE_ROLLOUT_STATES: readonly RolloutState[] = ['running', 'paused', 'halted'];

export const MEMBER_STATES = ['pending', 'skipped', ...UPDATE_STATES] as const;
export type MemberState = (typeof MEMBER_STATES)[number];
/** Nothing more happens to the locker in this rollout (unless an operator resumes a cancelled one). */
export const FINAL_MEMBER_STATES: readonly MemberState[] = ['confirmed', 'refused', 'failed', 'rolled_back', 'cancelled', 'skipped'];
/** What counts toward a halt. */
export const FAILED_MEMBER_STATES: readonly MemberState[] = ['refused', 'failed', 'rolled_back'];
/** Under way and not switched yet: a pause, halt or abort tells these to stop. */
export const CANCELLABLE_MEMBER_STATES: readonly MemberState[] = ['offered', 'downloading', 'verifying', 'staged', 'waiting'];

export function isFinalMember(state: string): boolean {
  return (FINAL_MEMBER_STATES as readonly string[]).includes(state);
}
