/**
 * Points where a caller can watch the cloud's end of the locker link or make it misbehave on
 * purpose (fault-injection suites), like the agent's `LinkHooks`: each is called at one spot of
 * the production path and does nothing when absent.
 */
import type { DownMessage, UpMessage } from '../../../shared/src/protocol.js';
import type { EventsResult } from './up-stream.js';

export interface LockerLinkHooks {
  /** An up message from a locker, parsed, before it is handled. Returning false drops it, as if lost on the way. */
  onReceive?(lockerId: number, message: UpMessage): boolean | void;
  /**
   * After an `events` message was handled: every event it applied has committed, and its ack is
   * not yet published. Throwing or exiting here is a crash between the commit and the ack.
   */
  afterEvents?(lockerId: number, result: EventsResult): void;
  /**
   * Before a down message (commands, snapshot, ack) goes to the broker, after what it carries was
   * read and the send cursor committed. Returning false drops it, as if lost on the way; exiting
   * here is a crash between reading the commands and publishing them.
   */
  beforePublish?(lockerId: number, message: DownMessage): boolean | void;
}
