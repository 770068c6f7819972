/** The agent's view of the locker hardware: what the flows above `hw/` call. */

/** One lock on one board of one bus; `lock` is 1-based as printed on the board. */
export interface CellAddress {
  bus: string;
  board: number;
  lock: number;
}

/**
 * `jammed`: the door still read closed after every pulse. `no_reply`: the board stayed silent after
 * the unlock went out, through the re-reads: the door may or may not have opened.
 */
export type OpenResult =
  | { ok: true; attempts: number }
  | { ok: false; reason: 'jammed' | 'no_reply'; attempts: number };

export interface BoardEvent {
  bus: string;
  board: number;
  online: boolean;
}

/** Everything one status read of a board tells. */
export interface BoardStatus {
  /** lock -> door closed (hook locked, after the board's polarity). */
  closed: Map<number, boolean>;
  /** lock -> item present, for boards with infrared sensors (KR-CU16); absent otherwise. */
  items?: Map<number, boolean>;
}

export interface LockHardware {
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Pulse, then read status to confirm the door is open; bounded retries; never refuses to pulse
   * because the switch already reads open. A second open of a cell whose open is still under way
   * shares the first one's result instead of pulsing again.
   */
  open(cell: CellAddress, opts?: { attempts?: number }): Promise<OpenResult>;
  /** Door closed = hook locked after the board's polarity; throws HardwareError('no_reply') if the board does not answer. */
  readBoard(bus: string, board: number): Promise<Map<number, boolean>>;
  /** Like readBoard, plus the item-present sensors where the board has them. */
  readBoardStatus(bus: string, board: number): Promise<BoardStatus>;
  /** Every configured board, for reconciliation at start. */
  readAll(): Promise<{ doors: { address: CellAddress; closed: boolean }[]; offline: { bus: string; board: number }[] }>;
  /** Emitted on online/offline transitions (boards are assumed online until one fails to answer). */
  on(event: 'board', listener: (e: BoardEvent) => void): this;
  off(event: 'board', listener: (e: BoardEvent) => void): this;
}

export interface ScannerReader {
  start(): Promise<void>;
  stop(): Promise<void>;
  on(event: 'scan', listener: (barcode: string) => void): this;
  off(event: 'scan', listener: (barcode: string) => void): this;
}
