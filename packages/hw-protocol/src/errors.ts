/** Stable codes of hardware failures; callers branch on `code`, never on the message. */
export type HardwareErrorCode =
  /** The board did not answer within the frame timeout, after every retry. */
  | 'no_reply'
  /** A frame arrived but failed its checksum or framing. */
  | 'bad_frame'
  /** The serial device or TCP bridge is not connected. */
  | 'port_closed'
  /** The request names a bus, board or lock that the configuration does not have. */
  | 'unknown_address'
  /** The hardware layer is not started or is stopping. */
  | 'not_started';

export class HardwareError extends Error {
  override readonly name = 'HardwareError';

  constructor(
    readonly code: HardwareErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Worth sending again: the line or the board may recover. */
  get isRetryable(): boolean {
    return this.code === 'no_reply' || this.code === 'bad_frame';
  }
}

export function isHardwareError(err: unknown, code?: HardwareErrorCode): err is HardwareError {
  return err instanceof HardwareError && (code === undefined || err.code === code);
}
