/**
 * A byte pipe to a bus or a scanner. Drivers take one of these, so the same driver runs on a
 * serial device, a TCP-to-RS485 bridge or the simulator. While it is not connected, writes fail
 * with HardwareError('port_closed').
 */

export interface TransportEvents {
  data: [Buffer];
  /** Connected (first time or again). */
  open: [];
  /** Connection lost (a reconnecting transport tries again unless it was closed). */
  close: [];
}

export interface Transport {
  readonly description: string;
  readonly isOpen: boolean;
  /** Starts connecting; resolves after the first attempt (failed attempts are retried in the background). */
  open(): Promise<void>;
  close(): Promise<void>;
  write(data: Buffer): Promise<void>;
  on<K extends keyof TransportEvents>(event: K, listener: (...args: TransportEvents[K]) => void): this;
  off<K extends keyof TransportEvents>(event: K, listener: (...args: TransportEvents[K]) => void): this;
}
