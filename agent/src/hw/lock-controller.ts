/**
 * The locker's locks across all its buses. Open = pulse, then status reads until the door reads
 * open; a door that stays shut gets another pulse, up to a bounded number, and is then reported
 * jammed. A board that does not answer (the unlock or its confirmation) may still have opened the
 * door: the door is read again a bounded number of times; open goes on as opened, closed as a door
 * still shut, and a board silent throughout gives `no_reply` (the door's state is unknown).
 * A second open of a cell while the first is under way shares the first one's result.
 */
import { EventEmitter } from 'node:events';
import { driverFor, HardwareError, isHardwareError, type Transport } from '@parcel-locker/hw-protocol';
import type { Logger } from 'pino';
import { busFraming, type BusConfig } from './config.js';
import { Bus, type BusObserver } from './bus.js';
import { createTransport } from './transport/create.js';
import type { BoardEvent, BoardStatus, CellAddress, LockHardware, OpenResult } from './types.js';

export interface LockHardwareOptions {
  /** Makes the byte pipe of a bus; defaults to a serial device or tcp:// from the bus's path. */
  createTransport?: (bus: BusConfig, logger: Logger) => Transport;
  /** Watches every bus's answer times and unanswered requests. */
  observer?: BusObserver;
}

const delay = (ms: number): Promise<void> => new Promise((res) => setTimeout(res, ms));

export class LockController extends EventEmitter<{ board: [BoardEvent] }> implements LockHardware {
  private buses = new Map<string, Bus<unknown>>();
  private readonly inflight = new Map<string, Promise<OpenResult>>();
  private started = false;

  constructor(
    private readonly configs: readonly BusConfig[],
    private readonly logger: Logger,
    private readonly options: LockHardwareOptions = {},
  ) {
    super();
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const names = new Set<string>();
    for (const cfg of this.configs) {
      if (names.has(cfg.name)) throw new Error(`two buses are named "${cfg.name}"`);
      names.add(cfg.name);
      const log = this.logger.child({ bus: cfg.name });
      const transport = this.options.createTransport?.(cfg, log) ?? createTransport(cfg.path, busFraming(cfg), cfg, log);
      const bus = new Bus(cfg, driverFor(cfg.family), transport, log, this.options.observer);
      bus.on('board', (e) => this.emit('board', e));
      this.buses.set(cfg.name, bus);
    }
    await Promise.all([...this.buses.values()].map((b) => b.start()));
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    const buses = [...this.buses.values()];
    this.buses = new Map();
    await Promise.allSettled([...this.inflight.values()]);
    await Promise.all(buses.map((b) => b.stop()));
    for (const b of buses) b.removeAllListeners('board');
  }

  open(cell: CellAddress, opts: { attempts?: number } = {}): Promise<OpenResult> {
    const key = `${cell.bus}/${cell.board}/${cell.lock}`;
    const running = this.inflight.get(key);
    if (running) {
      this.logger.info({ cell }, 'open already under way; sharing its result');
      return running;
    }
    const p = this.openOnce(cell, opts.attempts).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  async readBoard(bus: string, board: number): Promise<Map<number, boolean>> {
    return (await this.readBoardStatus(bus, board)).closed;
  }

  async readBoardStatus(busName: string, board: number): Promise<BoardStatus> {
    const bus = this.bus(busName);
    const raw = await bus.readStatus(board);
    const inverted = bus.config.boards.find((b) => b.address === board)?.polarity === 'inverted';
    const closed = new Map<number, boolean>();
    raw.hooks.forEach((bit, i) => closed.set(i + 1, inverted ? !bit : bit));
    const status: BoardStatus = { closed };
    if (raw.items) status.items = new Map(raw.items.map((present, i) => [i + 1, present]));
    return status;
  }

  async readAll(): Promise<{ doors: { address: CellAddress; closed: boolean }[]; offline: { bus: string; board: number }[] }> {
    const doors: { address: CellAddress; closed: boolean }[] = [];
    const offline: { bus: string; board: number }[] = [];
    await Promise.all(
      [...this.buses.values()].map(async (bus) => {
        for (const { address: board } of bus.config.boards) {
          try {
            const closed = await this.readBoard(bus.name, board);
            for (const [lock, isClosed] of closed) doors.push({ address: { bus: bus.name, board, lock }, closed: isClosed });
          } catch (err) {
            if (!isHardwareError(err, 'no_reply')) throw err;
            offline.push({ bus: bus.name, board });
          }
        }
      }),
    );
    return { doors, offline };
  }

  private bus(name: string): Bus<unknown> {
    if (!this.started) throw new HardwareError('not_started', 'lock hardware is not started');
    const bus = this.buses.get(name);
    if (!bus) throw new HardwareError('unknown_address', `no bus named "${name}"`);
    return bus;
  }

  private async openOnce(cell: CellAddress, attemptsOverride?: number): Promise<OpenResult> {
    const bus = this.bus(cell.bus);
    const { openAttempts, confirmDelayMs, confirmReads } = bus.config;
    const attempts = Math.max(1, Math.floor(attemptsOverride ?? openAttempts));
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        await bus.unlock(cell.board, cell.lock);
        for (let read = 0; read < confirmReads; read++) {
          await delay(confirmDelayMs);
          const closed = await this.readBoard(cell.bus, cell.board);
          if (closed.get(cell.lock) === false) {
            this.logger.info({ cell, attempt }, 'door open');
            return { ok: true, attempts: attempt };
          }
        }
      } catch (err) {
        if (!isHardwareError(err, 'no_reply')) throw err;
        // The unlock may have been carried out: only the answer is missing. Ask the door itself.
        const door = await this.recheck(cell);
        if (door === 'open') {
          this.logger.warn({ cell, attempt }, 'board did not answer, but the door reads open');
          return { ok: true, attempts: attempt };
        }
        if (door === 'unknown') {
          this.logger.warn({ cell, attempt, err }, 'board does not answer; whether the door opened is unknown');
          return { ok: false, reason: 'no_reply', attempts: attempt };
        }
      }
      this.logger.warn({ cell, attempt }, 'door still reads closed after the pulse');
    }
    this.logger.error({ cell, attempts }, 'door did not open: lock jammed');
    return { ok: false, reason: 'jammed', attempts };
  }

  /**
   * After an unanswered unlock or confirmation: up to `confirmReads` status reads, `confirmDelayMs`
   * apart (each with the bus's own resends), so the wait stays bounded while the board is silent.
   */
  private async recheck(cell: CellAddress): Promise<'open' | 'closed' | 'unknown'> {
    const { confirmDelayMs, confirmReads } = this.bus(cell.bus).config;
    for (let read = 0; read < confirmReads; read++) {
      await delay(confirmDelayMs);
      try {
        const closed = (await this.readBoard(cell.bus, cell.board)).get(cell.lock);
        if (closed !== undefined) return closed ? 'closed' : 'open';
      } catch (err) {
        if (!isHardwareError(err, 'no_reply')) throw err;
      }
    }
    return 'unknown';
  }
}

export function createLockHardware(buses: BusConfig[], logger: Logger, options?: LockHardwareOptions): LockHardware {
  return new LockController(buses, logger, options);
}
