/**
 * What a board family plugs into the bus: a frame parser and the request/reply exchanges for a
 * status read and an unlock. One folder per family holds its codec (pure bytes) and its driver.
 */
import type { BoardFamily } from './families.js';
import type { FrameParser } from './frame-decoder.js';

/** A board's status as the wire says it, before polarity. Index 0 is lock 1. */
export interface RawBoardStatus {
  /** true = the status bit that normal-polarity boards set for a locked hook. */
  hooks: boolean[];
  /** Item-present infrared sensors, where the board has them. */
  items?: boolean[];
}

export interface FrameRequest<F, T> {
  board: number;
  bytes: Buffer;
  /** Short name for logs ("status", "unlock 5"). */
  label: string;
  /** Picks the reply to this request out of the decoded frames; undefined = not ours. */
  accept: (frame: F) => T | undefined;
  /** Resends after a timeout; defaults to the bus's `retries`. */
  retries?: number;
}

export interface SendRequest {
  board: number;
  bytes: Buffer;
  label: string;
}

/** The bus as a driver sees it: one exchange at a time, in order. */
export interface BusLink<F> {
  /** Sends and waits for the accepted reply; throws HardwareError('no_reply') after the retries. */
  request<T>(req: FrameRequest<F, T>): Promise<T>;
  /**
   * Sends and waits up to one frame timeout for an accepted reply, never resending and never
   * failing: for replies that only acknowledge (an unlock whose effect a status read confirms).
   */
  requestOptional<T>(req: FrameRequest<F, T>): Promise<T | undefined>;
  /** Sends a frame that has no reply. */
  send(req: SendRequest): Promise<void>;
}

export interface BoardDriver<F> {
  readonly family: BoardFamily;
  readonly parseFrame: FrameParser<F>;
  readStatus(link: BusLink<F>, board: number, locks: number): Promise<RawBoardStatus>;
  /** Pulses one lock (1-based). Resolves once the frame is out; says nothing about the door. */
  unlock(link: BusLink<F>, board: number, lock: number): Promise<void>;
}
