/**
 * The steps of an update on the locker, announced on a `node:diagnostics_channel` channel as each
 * one is under way. Nothing in the agent listens: it is the observation point of tests (a preload
 * that stops the process at a step, as a power cut would) and of operators' own tooling, and
 * costs nothing without a subscriber.
 */
import { channel } from 'node:diagnostics_channel';

export const UPDATE_STEP_CHANNEL = 'parcel-locker:agent-update-step';
export type UpdateStep = 'download' | 'verify' | 'stage' | 'switch' | 'first-start' | 'confirm';

const steps = channel(UPDATE_STEP_CHANNEL);

export function announceStep(step: UpdateStep, detail: { version: string }): void {
  if (steps.hasSubscribers) steps.publish({ step, ...detail });
}
