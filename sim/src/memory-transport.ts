/**
 * An in-process byte pipe to a simulated device, for tests that drive time with fake timers:
 * the bytes are the same as over TCP, only the socket is left out. Delivery is asynchronous
 * (a microtask), as it is on a real line.
 */
import { EventEmitter } from 'node:events';
import { HardwareError, type Transport, type TransportEvents } from '@parcel-locker/hw-protocol';

export interface ByteDevice {
  input(chunk: Buffer): void;
  on(event: 'output', listener: (chunk: Buffer) => void): unknown;
  off(event: 'output', listener: (chunk: Buffer) => void): unknown;
}

export class MemoryTransport extends EventEmitter<TransportEvents> implements Transport {
  private connected = false;
  private readonly onOutput = (chunk: Buffer): void => {
    const copy = Buffer.from(chunk);
    queueMicrotask(() => {
      if (this.connected) this.emit('data', copy);
    });
  };

  constructor(
    readonly description: string,
    private readonly device: ByteDevice,
  ) {
    super();
  }

  get isOpen(): boolean {
    return this.connected;
  }

  open(): Promise<void> {
    if (!this.connected) {
      this.connected = true;
      this.device.on('output', this.onOutput);
      this.emit('open');
    }
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.connected) {
      this.connected = false;
      this.device.off('output', this.onOutput);
      this.emit('close');
    }
    return Promise.resolve();
  }

  write(data: Buffer): Promise<void> {
    if (!this.connected) return Promise.reject(new HardwareError('port_closed', `${this.description} is not connected`));
    const copy = Buffer.from(data);
    queueMicrotask(() => this.device.input(copy));
    return Promise.resolve();
  }
}
