/**
 * Points where a caller can watch the link or make it misbehave on purpose (fault-injection
 * suites): each is called at one spot of the production path, and does nothing when absent.
 */
import type { Command, DownMessage, Snapshot, UpMessage } from '../../../shared/src/protocol.js';
import type { ApplyResult, SnapshotResult } from '../commands/index.js';

export interface LinkHooks {
  /**
   * Before an up message (hello, events, ack) goes to the broker, after what it reports has
   * committed. Returning false drops it, as if it were lost on the way; throwing or exiting here
   * is a crash between commit and publish.
   */
  beforePublish?(message: UpMessage): boolean | void;
  /** A down message, parsed, before it is handled. Returning false drops it, as if lost on the way. */
  onReceive?(message: DownMessage): boolean | void;
  /** After each command of a `commands` message went through applyCommand. */
  afterApply?(command: Command, result: ApplyResult): void;
  /** After a snapshot went through applySnapshot. */
  afterSnapshot?(snapshot: Snapshot, result: SnapshotResult): void;
}
