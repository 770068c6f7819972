/**
 * An RS485 bus of simulated Kerong boards (CU48 or CU16). It reads request frames with the same
 * decoder the agent uses and writes replies byte for byte as the boards do, with switchable
 * faults: silent board, wrong checksum, and line noise around every reply.
 */
import { EventEmitter } from 'node:events';
import { FrameDecoder, type DecodeEvent } from '../../agent/src/hw/protocol/frame-decoder.js';
import * as cu48 from '../../agent/src/hw/protocol/kerong-cu48/codec.js';
import * as cu16 from '../../agent/src/hw/protocol/kerong-cu16/codec.js';
import { randomBytes, type Random } from './random.js';
import { SimBoard, type Polarity, type SimBoardState } from './lock-board.js';

export type SimFamily = 'kerong-cu48' | 'kerong-cu16';

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
  /** A door opened or closed, or an item came or went. */
  change: [];
}

/** Requests with a bad checksum or noise are ignored, as a board ignores them. */
function frames<F>(events: DecodeEvent<F>[]): F[] {
  return events.flatMap((e) => (e.type === 'frame' ? [e.frame] : []));
}

export class SimulatedBus extends EventEmitter<SimBusEvents> {
  readonly boards = new Map<number, SimBoard>();
  noiseBytes = 0;
  private readonly feed: (chunk: Buffer) => void;

  constructor(private readonly options: SimBusOptions) {
    super();
    const lockCount = options.family === 'kerong-cu48' ? cu48.LOCKS : cu16.LOCKS;
    const maxAddress = options.family === 'kerong-cu48' ? 9 : 14;
    for (const b of options.boards) {
      if (b.address < 0 || b.address > maxAddress) throw new RangeError(`${options.family} board addresses are 0-${maxAddress}`);
      if (this.boards.has(b.address)) throw new RangeError(`board ${b.address} appears twice`);
      this.boards.set(b.address, new SimBoard(b.address, b.polarity ?? 'normal', lockCount, options.autoCloseMs, () => this.emit('change')));
    }
    if (options.family === 'kerong-cu48') {
      const d = new FrameDecoder(cu48.parseCu48Frame);
      this.feed = (chunk) => frames(d.push(chunk)).forEach((f) => this.onCu48(f));
    } else {
      const d = new FrameDecoder(cu16.parseCu16Frame);
      this.feed = (chunk) => frames(d.push(chunk)).forEach((f) => this.onCu16(f));
    }
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

  private targets(address: number, broadcast: number): SimBoard[] {
    const one = this.boards.get(address);
    const boards = address === broadcast ? [...this.boards.values()].sort((a, b) => a.address - b.address) : one ? [one] : [];
    for (const b of boards) b.requests += 1;
    return boards;
  }

  private onCu48(frame: cu48.Cu48Frame): void {
    switch (frame.type) {
      case 'status-request':
        for (const b of this.targets(frame.address, cu48.BROADCAST_ADDRESS)) {
          this.reply(b, cu48.encodeStatusReply(b.address, b.hookBits()));
        }
        return;
      case 'unlock-request':
        for (const b of this.targets(frame.address, cu48.BROADCAST_ADDRESS)) {
          if (frame.lock === 'all') b.locks.forEach((_, i) => b.pulse(i + 1));
          else if (frame.lock <= b.locks.length) b.pulse(frame.lock);
        }
        return;
      case 'status-reply':
        return;
    }
  }

  private onCu16(frame: cu16.Cu16Frame): void {
    if (frame.type !== 'request') return;
    const all = frame.address === cu16.BROADCAST_ADDRESS;
    const boards = all ? this.targets(frame.address, cu16.BROADCAST_ADDRESS) : this.targets(cu16.boardOf(frame.address), -1);
    for (const b of boards) {
      switch (frame.command) {
        case 'unlock':
          if (!all) b.pulse(cu16.lockOf(frame.address));
          break;
        case 'unlock-all':
          b.locks.forEach((_, i) => b.pulse(i + 1));
          break;
        case 'status':
        case 'status-all':
          break;
      }
      const address = all ? b.address << 4 : frame.address;
      this.reply(b, cu16.encodeStatusReply(address, b.hookBits(), b.items()));
    }
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
