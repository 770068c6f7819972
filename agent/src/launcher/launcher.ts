/**
 * What the launcher does with the releases directory (release-dir.ts), as functions of its state
 * and the clock, so that the commands of main.ts stay a few lines each:
 *
 * - pick: before every start of the agent (the unit's ExecStartPre). A pending trial gets one more
 *   start, or goes back once it used them all (a new version that keeps dying before it confirms
 *   itself); otherwise the active slot, or the one before it, or the factory install, whichever is
 *   complete. `current` is pointed at the choice.
 * - revertIfOverdue: the watchdog (a timer unit): a trial past its deadline without confirmation
 *   (the new version hangs, or never got to its check) goes back; the caller restarts the agent.
 * - rollback: the unit's OnFailure (the agent hit systemd's start limit): a pending trial goes back.
 */
import type { UpdateReason } from '../../../shared/src/protocol.js';
import type { ReleaseDir} from '../updates/release-dir.js';
import { revertedState, type LauncherState } from '../updates/release-dir.js';

/** Grace after a trial's deadline before the watchdog steps in (the agent's own check goes first). */
export const WATCHDOG_GRACE_MS = 60_000;

export interface Decision {
  /** The slot `current` now points at (null: the factory install). */
  slot: string | null;
  /** What happened, for the log. */
  note: 'trial' | 'active' | 'reverted' | 'fallback';
  reason?: UpdateReason;
  attempt?: number;
}

function revert(dir: ReleaseDir, state: LauncherState, reason: UpdateReason, now: number): LauncherState {
  const next = revertedState(state, reason, now);
  dir.writeState(next);
  return next;
}

export function pick(dir: ReleaseDir, startAttempts: number, now: number): Decision {
  dir.ensure();
  let state = dir.readState();
  let reverted: UpdateReason | undefined;
  const trial = state.trial;
  if (trial) {
    if (!dir.hasSlot(trial.slot)) reverted = 'stage_failed';
    else if (trial.attempts >= startAttempts) reverted = 'crash_loop';
    if (reverted) {
      state = revert(dir, state, reverted, now);
    } else {
      const next: LauncherState = { ...state, trial: { ...trial, attempts: trial.attempts + 1 } };
      dir.writeState(next);
      dir.pointCurrentAt(trial.slot);
      return { slot: trial.slot, note: 'trial', attempt: trial.attempts + 1 };
    }
  }
  for (const candidate of [state.active, state.previous, null]) {
    if (dir.hasSlot(candidate)) {
      dir.pointCurrentAt(candidate);
      if (reverted) return { slot: candidate, note: 'reverted', reason: reverted };
      return { slot: candidate, note: candidate === state.active ? 'active' : 'fallback' };
    }
  }
  throw new Error(`no agent to start: neither a slot of ${dir.root} nor the factory install ${dir.factory} has a main.js`);
}

/** True when a trial was overdue and went back (the caller restarts the agent). */
export function revertIfOverdue(dir: ReleaseDir, now: number): boolean {
  const state = dir.readState();
  if (!state.trial || now < state.trial.deadline + WATCHDOG_GRACE_MS) return false;
  revert(dir, state, 'hung', now);
  return true;
}

/** True when a pending trial went back. */
export function rollback(dir: ReleaseDir, now: number): boolean {
  const state = dir.readState();
  if (!state.trial) return false;
  revert(dir, state, 'crash_loop', now);
  return true;
}
