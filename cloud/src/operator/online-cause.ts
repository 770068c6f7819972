/**
 * Why a locker's current "online since" began, so that an operator tells a cloud restart (every
 * locker reconnects at once; nothing is wrong at the locker) from the locker's own restart (a
 * power cut, an update) and from a link that dropped and came back.
 */
export const ONLINE_CAUSES = ['cloud_restart', 'locker_restart', 'link_restored'] as const;
export type OnlineCause = (typeof ONLINE_CAUSES)[number];

/** A reconnect this close after a start is taken as caused by it (agents retry within seconds; a busy locker may take longer). */
export const START_WINDOW_MS = 120_000;

export interface OnlineFacts {
  online: boolean;
  /** Online since (presence_changed_at). */
  since: number | null;
  /** When this cloud process started. */
  cloudStartedAt: number;
  /** When the locker's agent started, from its latest health report (at − uptime); null: no report. */
  agentStartedAt: number | null;
}

export function onlineCause(f: OnlineFacts): OnlineCause | null {
  if (!f.online || f.since === null) return null;
  if (f.since >= f.cloudStartedAt && f.since - f.cloudStartedAt <= START_WINDOW_MS) return 'cloud_restart';
  if (f.agentStartedAt !== null && f.since >= f.agentStartedAt && f.since - f.agentStartedAt <= START_WINDOW_MS) return 'locker_restart';
  return 'link_restored';
}
