/**
 * An RS485 bus of simulated lock boards. It reads request frames with the same codec the agent
 * uses and writes replies byte for byte as the boards do, with switchable faults: silent board,
 * wrong checksum, and line noise around every reply.
 */
import { EventEmitter } from 'node:events';
import { randomBytes, type Random } from './random.js';
import { SimBoard, type Polarity, type SimBoardState } from './lock-board.js';
import { createResponder, FAMILY_SHAPES, type SimFamily } from './responders.js';

export type { SimFamily } from './responders.js';

export interface SimBusOptions {
  name: string;
  family: SimFamily;
  boards: { address: number; polarity?: Polarity }[];
  autoCloseMs?: number;
  random: Random;
}

export interface SimBusState {
  name: string;
  family: SimFamily;
  /** Random bytes sent before and after each reply (0 = clean line). */
  noiseBytes: number;
  boards: SimBoardState[];
}

export interface SimBusEvents {
  /** Bytes the boards put on the line. */
  output: [Buffer];
  /** A door opened or closed. */
  change: [];
}

export class SimulatedBus extends EventEmitter<SimBusEvents> {
  readonly boards = new Map<number, SimBoard>();
  noiseBytes = 0;
  private readonly feed: (chunk: Buffer) => void;

  constructor(private readonly options: SimBusOptions) {
    super();
    const shape = FAMILY_SHAPES[options.family];
    for (const b of options.boards) {
      if (b.address < shape.minAddress || b.address > shape.maxAddress) {
        throw new RangeError(`${options.family} board addresses are ${shape.minAddress}-${shape.maxAddress}`);
      }
      if (this.boards.has(b.address)) throw new RangeError(`board ${b.address} appears twice`);
      this.boards.set(b.address, new SimBoard(b.address, b.polarity ?? 'normal', shape.locks, options.autoCloseMs, () => this.emit('change')));
    }
    this.feed = createResponder(options.family, {
      targets: (address, broadcast) => this.targets(address, broadcast),
      reply: (board, bytes) => this.reply(board, bytes),
    });
  }

  get name(): string {
    return this.options.name;
  }

  get family(): SimFamily {
    return this.options.family;
  }

  board(address: number): SimBoard {
    const b = this.boards.get(address);
    if (!b) throw new RangeError(`bus ${this.name} has no board ${address}`);
    return b;
  }

  /** Bytes from the controller. */
  input(chunk: Buffer): void {
    this.feed(chunk);
  }

  dispose(): void {
    for (const b of this.boards.values()) b.dispose();
    this.removeAllListeners();
  }

  state(): SimBusState {
    return { name: this.name, family: this.family, noiseBytes: this.noiseBytes, boards: [...this.boards.values()].map((b) => b.state()) };
  }

  private targets(address: number, broadcast?: number): SimBoard[] {
    const one = this.boards.get(address);
    const boards = address === broadcast ? [...this.boards.values()].sort((a, b) => a.address - b.address) : one ? [one] : [];
    for (const b of boards) b.requests += 1;
    return boards;
  }

  private reply(board: SimBoard, frame: Buffer): void {
    const fate = board.nextReply();
    if (fate === 'drop') return;
    const bytes = Buffer.from(frame);
    if (fate === 'corrupt') bytes[bytes.length - 1] = ((bytes[bytes.length - 1] ?? 0) + 1) & 0xff;
    if (this.noiseBytes > 0) {
      const r = this.options.random;
      this.emit('output', Buffer.concat([randomBytes(r, this.noiseBytes), bytes, randomBytes(r, this.noiseBytes)]));
    } else {
      this.emit('output', bytes);
    }
  }
}
