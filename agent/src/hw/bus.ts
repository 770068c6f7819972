/**
 * One RS485 bus: a queue with one frame in flight, a per-frame timeout, bounded resends, and the
 * reply matched to its request. Everything else that arrives (noise, frames failing their check,
 * replies nobody waits for, the echo of our own frames) is counted, logged rate-limited and dropped.
 */
import { EventEmitter } from 'node:events';
import {
  FrameDecoder,
  HardwareError,
  hex,
  isHardwareError,
  type BoardDriver,
  type BusLink,
  type FrameRequest,
  type RawBoardStatus,
  type SendRequest,
  type Transport,
} from '@parcel-locker/hw-protocol';
import type { Logger } from 'pino';
import { boardLockCount, type BusConfig } from './config.js';
import { RateLimitedLog } from './rate-limited-log.js';
import type { BoardEvent } from './types.js';

/** Watches a bus's exchanges (the agent's vital signs): each answer's time, each request left unanswered. */
export interface BusObserver {
  answered(bus: string, ms: number): void;
  unanswered(bus: string): void;
}

export interface BusStats {
  framesSent: number;
  repliesMatched: number;
  timeouts: number;
  badFrames: number;
  noiseBytes: number;
  strayFrames: number;
}

interface Waiter<F> {
  accept: (frame: F) => unknown;
  resolve: (value: unknown) => void;
}

const delay = (ms: number): Promise<void> => new Promise((res) => setTimeout(res, ms));

export class Bus<F> extends EventEmitter<{ board: [BoardEvent] }> implements BusLink<F> {
  private readonly decoder: FrameDecoder<F>;
  private readonly noisy: RateLimitedLog;
  private readonly online = new Map<number, boolean>();
  private tail: Promise<unknown> = Promise.resolve();
  private waiter: Waiter<F> | undefined;
  private running = false;
  private readonly counters: BusStats = { framesSent: 0, repliesMatched: 0, timeouts: 0, badFrames: 0, noiseBytes: 0, strayFrames: 0 };
  private readonly onData = (chunk: Buffer): void => this.receive(chunk);

  constructor(
    readonly config: BusConfig,
    private readonly driver: BoardDriver<F>,
    private readonly transport: Transport,
    private readonly logger: Logger,
    private readonly observer?: BusObserver,
  ) {
    super();
    this.decoder = new FrameDecoder(driver.parseFrame);
    this.noisy = new RateLimitedLog(logger);
  }

  get name(): string {
    return this.config.name;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    for (const b of this.config.boards) this.online.set(b.address, true);
    this.transport.on('data', this.onData);
    await this.transport.open();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.transport.off('data', this.onData);
    this.waiter?.resolve(undefined);
    await this.tail;
    await this.transport.close();
  }

  stats(): BusStats {
    return { ...this.counters };
  }

  isOnline(board: number): boolean {
    return this.online.get(board) ?? false;
  }

  lockCount(board: number): number {
    const cfg = this.config.boards.find((b) => b.address === board);
    if (!cfg) throw new HardwareError('unknown_address', `bus ${this.name} has no board ${board}`);
    return boardLockCount(this.config.family, cfg);
  }

  readStatus(board: number): Promise<RawBoardStatus> {
    return this.driver.readStatus(this, board, this.lockCount(board));
  }

  unlock(board: number, lock: number): Promise<void> {
    const locks = this.lockCount(board);
    if (!Number.isInteger(lock) || lock < 1 || lock > locks) {
      return Promise.reject(new HardwareError('unknown_address', `board ${board} on bus ${this.name} has locks 1-${locks}`));
    }
    return this.driver.unlock(this, board, lock);
  }

  request<T>(req: FrameRequest<F, T>): Promise<T> {
    return this.enqueue(async () => {
      const value = await this.exchange(req, req.retries ?? this.config.retries);
      if (!this.running) throw new HardwareError('not_started', `bus ${this.name} stopped`);
      if (value === undefined) {
        this.setOnline(req.board, false);
        throw new HardwareError('no_reply', `board ${req.board} on bus ${this.name} did not answer ${req.label}`);
      }
      this.setOnline(req.board, true);
      return value;
    });
  }

  requestOptional<T>(req: FrameRequest<F, T>): Promise<T | undefined> {
    return this.enqueue(async () => {
      const value = await this.exchange(req, 0);
      if (value !== undefined) this.setOnline(req.board, true);
      return value;
    });
  }

  send(req: SendRequest): Promise<void> {
    return this.enqueue(async () => {
      await this.write(req.board, req.bytes, req.label);
      if (this.config.interFrameDelayMs > 0) await delay(this.config.interFrameDelayMs);
    });
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      if (!this.running) throw new HardwareError('not_started', `bus ${this.name} is not running`);
      return job();
    };
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined);
    return result;
  }

  private async write(board: number, bytes: Buffer, label: string): Promise<void> {
    try {
      await this.transport.write(bytes);
    } catch (err) {
      if (isHardwareError(err, 'port_closed')) {
        this.setOnline(board, false);
        throw new HardwareError('no_reply', `board ${board} on bus ${this.name}: ${err.message}`, { cause: err });
      }
      throw err;
    }
    this.counters.framesSent += 1;
    this.logger.trace({ bus: this.name, board, label, frame: hex(bytes) }, 'sent');
  }

  /** Sends up to 1 + retries times; the accepted value, or undefined when every try timed out. */
  private async exchange<T>(req: FrameRequest<F, T>, retries: number): Promise<T | undefined> {
    for (let attempt = 0; attempt <= retries && this.running; attempt++) {
      // Whatever is buffered now cannot be the reply to a frame not sent yet.
      this.decoder.reset();
      let timer: NodeJS.Timeout | undefined;
      const answer = new Promise<unknown>((resolve) => {
        this.waiter = { accept: req.accept, resolve };
        timer = setTimeout(() => resolve(undefined), this.config.frameTimeoutMs);
      });
      try {
        const sentAt = performance.now();
        await this.write(req.board, req.bytes, req.label);
        const value = (await answer) as T | undefined;
        if (value !== undefined) {
          this.observer?.answered(this.name, performance.now() - sentAt);
          return value;
        }
      } finally {
        clearTimeout(timer);
        this.waiter = undefined;
      }
      if (!this.running) break;
      this.counters.timeouts += 1;
      this.logger.debug({ bus: this.name, board: req.board, label: req.label, attempt: attempt + 1 }, 'no reply in time');
    }
    if (this.running) this.observer?.unanswered(this.name);
    return undefined;
  }

  private receive(chunk: Buffer): void {
    for (const ev of this.decoder.push(chunk)) {
      switch (ev.type) {
        case 'frame': {
          const w = this.waiter;
          const value = w?.accept(ev.frame);
          if (w && value !== undefined) {
            this.counters.repliesMatched += 1;
            this.waiter = undefined;
            w.resolve(value);
          } else {
            this.counters.strayFrames += 1;
            this.logger.trace({ bus: this.name, frame: hex(ev.bytes) }, 'frame not awaited');
          }
          break;
        }
        case 'bad':
          this.counters.badFrames += 1;
          this.noisy.warn('bad', { bus: this.name, frame: hex(ev.bytes), reason: ev.reason }, 'frame failed its check, dropped');
          break;
        case 'noise':
          this.counters.noiseBytes += ev.bytes.length;
          this.noisy.warn('noise', { bus: this.name, bytes: ev.bytes.length }, 'unframed bytes on the line, dropped');
          break;
      }
    }
  }

  private setOnline(board: number, online: boolean): void {
    const was = this.online.get(board);
    if (was === undefined || was === online) return;
    this.online.set(board, online);
    this.logger[online ? 'info' : 'warn']({ bus: this.name, board }, online ? 'board answers again' : 'board stopped answering');
    this.emit('board', { bus: this.name, board, online });
  }
}
