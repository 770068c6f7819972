/**
 * What the locker link hands to the lockers' software updates (updates/conductor.ts), and what
 * it lets them send: the types only, so that the link and the updates need not import each other.
 */
import type { AgentSoftware, DownMessage, UpdateReport } from '../../../shared/src/protocol.js';

/** An update offer or its cancellation, as the link sends it to one locker. */
export type UpdateDownMessage = Extract<DownMessage, { type: 'update' | 'update.cancel' }>;

export interface LockerUpdates {
  /** After the cloud answered a hello: what the agent said of its software (absent from older agents). */
  onHello(lockerId: number, agent: AgentSoftware | undefined): Promise<void>;
  /** An agent's `update` report. */
  onReport(lockerId: number, report: UpdateReport): Promise<void>;
  /** A presence naming the agent's version. */
  onPresence(lockerId: number, version: string): Promise<void>;
}

/** The link as the updates use it. */
export interface UpdateSender {
  /** False when the broker is not connected (the offer goes again on the next tick or hello). */
  sendUpdate(lockerId: number, message: UpdateDownMessage): boolean;
}
