/**
 * MQTT topic map. Every locker owns the subtree `lockers/<lockerId>/`; the broker ACLs
 * (embedded broker hooks and deploy/mosquitto) rely on exactly this layout.
 */
export const TOPIC_ROOT = 'lockers';

export const topics = {
  /** cloud -> agent: command batches, snapshots and acks of the agent's events. */
  down: (lockerId: string) => `${TOPIC_ROOT}/${lockerId}/down`,
  /** agent -> cloud: hello, event batches and acks of applied commands. */
  up: (lockerId: string) => `${TOPIC_ROOT}/${lockerId}/up`,
  /** agent -> anyone: retained birth / last-will with a connection counter. */
  presence: (lockerId: string) => `${TOPIC_ROOT}/${lockerId}/presence`,
} as const;

/** Subscriptions of the cloud (plain form; see `sharedSubscription` for several cloud processes). */
export const cloudSubscriptions = {
  up: `${TOPIC_ROOT}/+/up`,
  presence: `${TOPIC_ROOT}/+/presence`,
} as const;

/** `$share/<group>/<filter>`: brokers that support shared subscriptions spread events over cloud processes. */
export function sharedSubscription(group: string, filter: string): string {
  return `$share/${group}/${filter}`;
}

export type LockerTopicKind = 'down' | 'up' | 'presence';

/** Splits `lockers/<id>/<kind>`; null for anything else. */
export function parseLockerTopic(topic: string): { lockerId: string; kind: LockerTopicKind } | null {
  const parts = topic.split('/');
  if (parts.length !== 3 || parts[0] !== TOPIC_ROOT) return null;
  const [, lockerId, kind] = parts;
  if (!lockerId || (kind !== 'down' && kind !== 'up' && kind !== 'presence')) return null;
  return { lockerId, kind };
}
