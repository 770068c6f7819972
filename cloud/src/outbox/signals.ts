/**
 * In-process wake-up calls after a commit: the sync publisher and the notification dispatcher
 * also poll their tables, so a lost signal (another process committed) only costs latency.
 * On PostgreSQL the notification signals also cross processes (outbox/cross-process.ts): what
 * this process recorded is announced, what others announced arrives as notificationsElsewhere().
 */
import { EventEmitter } from 'node:events';
import { LiveFeed } from '../operator/live-feed.js';

export class OutboxSignals {
  readonly #events = new EventEmitter();
  /** What operators watch live (GET /operator/stream); publish after the change committed. */
  readonly live = new LiveFeed();

  /** Call after a transaction that recorded commands for these lockers has committed. */
  commandsRecorded(lockerIds: Iterable<number>): void {
    for (const id of new Set(lockerIds)) this.#events.emit('commands', id);
  }

  /** Call after a transaction that recorded notifications has committed. */
  notificationsRecorded(): void {
    this.#events.emit('notifications');
    this.#events.emit('local-notifications');
  }

  /** Another process recorded notifications (not announced again). */
  notificationsElsewhere(): void {
    this.#events.emit('notifications');
  }

  /** Call after an operator changed a rollout (updates/rollouts.ts): the conductor moves it on at once. */
  rolloutsChanged(rolloutId: number): void {
    this.#events.emit('rollouts', rolloutId);
  }

  onRollouts(listener: (rolloutId: number) => void): () => void {
    this.#events.on('rollouts', listener);
    return () => this.#events.off('rollouts', listener);
  }

  onCommands(listener: (lockerId: number) => void): () => void {
    this.#events.on('commands', listener);
    return () => this.#events.off('commands', listener);
  }

  onNotifications(listener: () => void): () => void {
    this.#events.on('notifications', listener);
    return () => this.#events.off('notifications', listener);
  }

  /** Only notifications this process recorded (to announce them to the others). */
  onLocalNotifications(listener: () => void): () => void {
    this.#events.on('local-notifications', listener);
    return () => this.#events.off('local-notifications', listener);
  }
}
