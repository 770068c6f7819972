/**
 * The agent's transports reconnect by themselves with back-off; while one is down, writes fail
 * with HardwareError('port_closed'). A subclass only opens one connection (serial.ts, tcp.ts).
 */
import { EventEmitter } from 'node:events';
import { HardwareError, type Transport, type TransportEvents } from '@parcel-locker/hw-protocol';
import type { Logger } from 'pino';

/** One live connection; a new one is made on every reconnect. */
export interface Link {
  write(data: Buffer): Promise<void>;
  destroy(): Promise<void>;
}

export interface LinkHandlers {
  onData(data: Buffer): void;
  onClose(err?: Error): void;
}

export interface ReconnectSettings {
  reconnectMinMs: number;
  reconnectMaxMs: number;
}

export abstract class ReconnectingTransport extends EventEmitter<TransportEvents> implements Transport {
  private link: Link | undefined;
  private running = false;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private connecting: Promise<void> | undefined;

  protected constructor(
    readonly description: string,
    private readonly reconnect: ReconnectSettings,
    protected readonly logger: Logger,
  ) {
    super();
  }

  /** Opens one connection; rejects when it cannot. */
  protected abstract connect(handlers: LinkHandlers): Promise<Link>;

  /** Gives up a connection attempt still under way (close() must not wait for a TCP timeout). */
  protected abortConnect(): void {}

  get isOpen(): boolean {
    return this.link !== undefined;
  }

  async open(): Promise<void> {
    if (this.running) return this.connecting;
    this.running = true;
    this.connecting = this.attempt();
    return this.connecting;
  }

  async close(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.abortConnect();
    await this.connecting?.catch(() => undefined);
    const link = this.link;
    this.link = undefined;
    if (link) await link.destroy().catch(() => undefined);
  }

  async write(data: Buffer): Promise<void> {
    const link = this.link;
    if (!link) throw new HardwareError('port_closed', `${this.description} is not connected`);
    try {
      await link.write(data);
    } catch (err) {
      throw new HardwareError('port_closed', `write to ${this.description} failed`, { cause: err });
    }
  }

  private async attempt(): Promise<void> {
    let current: Link | undefined;
    let lost = false;
    const handlers: LinkHandlers = {
      onData: (data) => {
        if (this.link === current && current) this.emit('data', data);
      },
      onClose: (err) => {
        if (lost) return;
        lost = true;
        if (current && this.link === current) {
          this.link = undefined;
          this.logger.warn({ transport: this.description, err }, 'connection lost');
          this.emit('close');
          this.schedule();
        }
      },
    };
    try {
      current = await this.connect(handlers);
    } catch (err) {
      this.failures += 1;
      const level = this.failures === 1 ? 'warn' : 'debug';
      this.logger[level]({ transport: this.description, err, failures: this.failures }, 'cannot connect');
      this.schedule();
      return;
    }
    if (!this.running || lost) {
      await current.destroy().catch(() => undefined);
      if (this.running) this.schedule();
      return;
    }
    this.failures = 0;
    this.link = current;
    this.logger.info({ transport: this.description }, 'connected');
    this.emit('open');
  }

  private schedule(): void {
    if (!this.running || this.timer) return;
    const delay = Math.min(this.reconnect.reconnectMaxMs, this.reconnect.reconnectMinMs * 2 ** Math.max(0, this.failures - 1));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.running) return;
      this.connecting = this.attempt();
    }, delay);
  }
}
