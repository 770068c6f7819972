/**
 * The locker's physical side composed: door supervision, cell operations, the keypad and the
 * screen session, started only after every board was read and interrupted operations resolved.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { pendingCellOpens, pendingHandovers } from '../commands/index.js';
import type { AgentConfig } from '../config.js';
import type { BoardEvent, LockHardware } from '../hw/index.js';
import type { LockerStore } from '../store/index.js';
import { recordBoardState } from './boards.js';
import { DoorSupervisor, type DoorReading } from './doors.js';
import { Handovers } from './handovers.js';
import { Keypad } from './keypad.js';
import { Kiosk } from './kiosk.js';
import { CellOperations } from './operations.js';
import { ServiceOpens } from './service-opens.js';
import { resolveInterrupted } from './startup.js';

export class Locker {
  readonly doors: DoorSupervisor;
  readonly ops: CellOperations;
  readonly keypad: Keypad;
  readonly kiosk: Kiosk;
  readonly serviceOpens: ServiceOpens;
  readonly handovers: Handovers;
  private started = false;
  private readonly onBoard = (e: BoardEvent): void => {
    try {
      recordBoardState(this.store, e);
    } catch (err) {
      this.logger.error({ err }, 'cannot record board state');
    }
  };

  constructor(
    private readonly store: LockerStore,
    private readonly hw: LockHardware,
    private readonly clock: Clock,
    private readonly logger: Logger,
    config: Pick<AgentConfig, 'lockerId' | 'keypad' | 'doors' | 'screen'>,
  ) {
    this.doors = new DoorSupervisor(store, hw, clock, logger, config.doors, (cellId) => this.ops.onDoorClosed(cellId));
    this.ops = new CellOperations(store, hw, clock, logger, this.doors);
    this.keypad = new Keypad(store, clock, config.keypad);
    this.kiosk = new Kiosk(store, clock, logger, this.keypad, this.ops, this.doors, {
      lockerId: config.lockerId,
      idleMs: config.screen.idleMs,
      maxCellsPerParcel: config.doors.maxCellsPerParcel,
    });
    this.serviceOpens = new ServiceOpens(store, this.ops, this.doors, clock, logger);
    this.handovers = new Handovers(store, this.ops, this.doors, clock, logger);
  }

  /** Reads every board, resolves interrupted operations, reconciles doors, then starts serving. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.hw.on('board', this.onBoard);
    let reading: DoorReading;
    try {
      reading = await this.doors.read();
    } catch (err) {
      this.logger.error({ err }, 'cannot read the boards at start; door states unknown');
      reading = { seq: 0, doors: [], offline: [] };
    }
    const resolved = resolveInterrupted(this.store, this.ops, reading, this.clock);
    if (resolved > 0) this.logger.warn({ resolved }, 'resolved operations interrupted by a restart');
    this.doors.apply(reading);
    await this.doors.start();
    await this.kiosk.start();
    await this.serviceOpens.start();
    await this.handovers.start();
  }

  /**
   * Whether the locker may be restarted now without anyone noticing (a new version switching
   * in): no door open, no operation of a door under way, nobody at the screen for `forMs`.
   * Otherwise names what keeps it busy.
   */
  quiet(forMs: number): { quiet: true } | { quiet: false; why: 'door_open' | 'operation' | 'screen' } {
    if (this.store.journal.all().length > 0) return { quiet: false, why: 'operation' };
    // A handover or an operator's open accepted and not yet carried out: a restart now could cut a
    // handover off between its cells, and keeps whoever waits at the door waiting longer.
    if (pendingHandovers(this.store).length > 0 || pendingCellOpens(this.store).length > 0) return { quiet: false, why: 'operation' };
    if (this.store.cells.all().some((c) => c.door === 'open')) return { quiet: false, why: 'door_open' };
    if (!this.kiosk.unattended(forMs)) return { quiet: false, why: 'screen' };
    return { quiet: true };
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.handovers.stop();
    await this.serviceOpens.stop();
    await this.kiosk.stop();
    await this.doors.stop();
    this.hw.off('board', this.onBoard);
  }
}
