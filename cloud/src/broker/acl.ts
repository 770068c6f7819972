/**
 * Who may publish and subscribe where: one pure rule set used by the embedded broker's hooks and
 * mirrored by deploy/mosquitto/acl. A locker owns `lockers/<itsId>/`: it writes `up` and
 * `presence` (`up` carries every message type of the agent: hello, events, acks, health reports)
 * and reads `down` and its own `presence` (so an agent that lost its local state can
 * continue its connection counter). The cloud writes every locker's `down` and reads every
 * `up` and `presence`. Nothing else: no `#`, no `$SYS`, no other locker's subtree.
 */
import { TOPIC_ROOT, parseLockerTopic } from '../../../shared/src/topics.js';

export type BrokerIdentity = { kind: 'locker'; lockerId: string } | { kind: 'cloud' };

/** Publish topics (concrete, never wildcards). */
export function mayPublish(who: BrokerIdentity, topic: string): boolean {
  const t = parseLockerTopic(topic);
  if (!t || isWildcard(t.lockerId)) return false;
  if (who.kind === 'cloud') return t.kind === 'down';
  return t.lockerId === who.lockerId && (t.kind === 'up' || t.kind === 'presence');
}

/** Only presence is ever retained; a retained flag on anything else is dropped. */
export function mayRetain(topic: string): boolean {
  return parseLockerTopic(topic)?.kind === 'presence';
}

/**
 * Subscription filters. The cloud may use `+` for the locker level; a locker names itself.
 * `$share/<group>/` is not accepted here: the embedded broker does not implement shared
 * subscriptions, and granting one would silently deliver nothing.
 */
export function maySubscribe(who: BrokerIdentity, filter: string): boolean {
  const parts = filter.split('/');
  if (parts.length !== 3 || parts[0] !== TOPIC_ROOT) return false;
  const [, lockerId = '', kind] = parts;
  if (lockerId === '' || lockerId.includes('#')) return false;
  if (who.kind === 'cloud') {
    if (lockerId !== '+' && isWildcard(lockerId)) return false;
    return kind === 'up' || kind === 'presence';
  }
  return lockerId === who.lockerId && (kind === 'down' || kind === 'presence');
}

/** Whether a concrete topic may reach this subscriber (checked again on every delivery). */
export function mayRead(who: BrokerIdentity, topic: string): boolean {
  const t = parseLockerTopic(topic);
  if (!t) return false;
  if (who.kind === 'cloud') return t.kind === 'up' || t.kind === 'presence';
  return t.lockerId === who.lockerId && (t.kind === 'down' || t.kind === 'presence');
}

function isWildcard(level: string): boolean {
  return level.includes('+') || level.includes('#');
}
