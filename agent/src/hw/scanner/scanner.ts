/** The serial barcode scanner (a device path or tcp://), emitting one 'scan' per barcode. */
import { EventEmitter } from 'node:events';
import { ScanFramer, type Transport } from '@parcel-locker/hw-protocol';
import type { Logger } from 'pino';
import type { ScannerConfig } from '../config.js';
import { RateLimitedLog } from '../rate-limited-log.js';
import { createTransport } from '../transport/create.js';
import type { ScannerReader } from '../types.js';

export interface ScannerOptions {
  /** Makes the byte pipe; defaults to a serial device or tcp:// from the config's path. */
  createTransport?: (config: ScannerConfig, logger: Logger) => Transport;
}

class SerialScanner extends EventEmitter<{ scan: [string] }> implements ScannerReader {
  private transport: Transport | undefined;
  private framer: ScanFramer | undefined;
  private readonly discards: RateLimitedLog;
  private readonly onData = (chunk: Buffer): void => this.framer?.push(chunk);

  constructor(
    private readonly config: ScannerConfig,
    private readonly logger: Logger,
    private readonly options: ScannerOptions,
  ) {
    super();
    this.discards = new RateLimitedLog(logger);
  }

  async start(): Promise<void> {
    if (this.transport) return;
    const c = this.config;
    this.framer = new ScanFramer(c, {
      scan: (barcode) => {
        this.logger.debug({ length: barcode.length }, 'scan');
        this.emit('scan', barcode);
      },
      discard: (reason, length) => this.discards.warn(reason, { reason, length }, 'scanner input discarded'),
    });
    this.transport =
      this.options.createTransport?.(c, this.logger) ??
      createTransport(c.path, { baudRate: c.baudRate, dataBits: c.dataBits, parity: c.parity, stopBits: c.stopBits }, c, this.logger);
    this.transport.on('data', this.onData);
    await this.transport.open();
  }

  async stop(): Promise<void> {
    const transport = this.transport;
    if (!transport) return;
    this.transport = undefined;
    transport.off('data', this.onData);
    this.framer?.clear();
    await transport.close();
  }
}

export function createScanner(config: ScannerConfig, logger: Logger, options: ScannerOptions = {}): ScannerReader {
  return new SerialScanner(config, logger, options);
}
