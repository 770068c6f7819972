/**
 * The hardware simulator: Kerong buses with N boards each and a barcode scanner, reachable over
 * TCP (tcp://127.0.0.1:PORT) and optionally over a pseudo-terminal, with doors a person (or a
 * test) opens and closes and faults that can be switched on and off.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Transport } from '@parcel-locker/hw-protocol';
import { simFaultSchema, type SimFault } from './faults.js';
import type { Polarity } from './lock-board.js';
import { MemoryTransport } from './memory-transport.js';
import { PtyLink } from './pty-link.js';
import { seededRandom, type Random } from './random.js';
import { SimulatedBus, type SimFamily } from './simulated-bus.js';
import { SimulatedScanner, type ScanOptions, type ScanSuffix } from './simulated-scanner.js';
import { TcpEndpoint } from './tcp-endpoint.js';
import { startControlApi, type ControlApi } from './http-api.js';
import type { SimBusConfig, SimBusInfo, SimCell, SimScannerConfig, SimulatorHandle, SimulatorState } from './simulator-handle.js';

export type { SimBusConfig, SimBusInfo, SimCell, SimScannerConfig, SimulatorHandle, SimulatorState } from './simulator-handle.js';

export interface SimBusOptions {
  name?: string;
  family?: SimFamily;
  /** Board count (addresses 0..n-1) or explicit boards. Default 1. */
  boards?: number | { address: number; polarity?: Polarity }[];
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Also expose the bus as a pseudo-terminal: true for a path under the temp dir, or the path. */
  pty?: boolean | string;
}

export interface SimScannerOptions {
  port?: number;
  pty?: boolean | string;
  suffix?: ScanSuffix;
  aimPrefix?: string;
  /** Pause between a garbage burst and the scan after it, ms (default 200). */
  gapMs?: number;
}

export interface SimulatorOptions {
  /** Default: one CU48 bus named 'main' with one board. */
  buses?: SimBusOptions[];
  /** Default: a scanner with CR LF suffix; false for none. */
  scanner?: SimScannerOptions | false;
  /** Control API (HTTP) for people and the CLI; off unless given. */
  http?: { port?: number };
  host?: string;
  /** Close every door this long after it opened (unattended demos). */
  autoCloseMs?: number;
  /** Seed of the noise and garbage generator. */
  seed?: number;
}

class Simulator implements SimulatorHandle {
  buses: SimBusInfo[] = [];
  scannerUrl?: string;
  scannerPtyPath?: string;
  httpUrl?: string;
  private readonly sims = new Map<string, SimulatedBus>();
  private scanner: SimulatedScanner | undefined;
  private readonly endpoints: TcpEndpoint[] = [];
  private readonly ptys: PtyLink[] = [];
  private api: ControlApi | undefined;
  private readonly random: Random;
  private readonly host: string;

  constructor(private readonly options: SimulatorOptions) {
    this.random = seededRandom(options.seed ?? 1);
    this.host = options.host ?? '127.0.0.1';
  }

  async start(): Promise<void> {
    const busOptions = this.options.buses ?? [{}];
    for (const [i, b] of busOptions.entries()) {
      const name = b.name ?? (i === 0 ? 'main' : `bus${i + 1}`);
      if (this.sims.has(name)) throw new Error(`two simulated buses are named "${name}"`);
      const boards: { address: number; polarity?: Polarity }[] =
        typeof b.boards === 'object' ? b.boards : Array.from({ length: b.boards ?? 1 }, (_, address) => ({ address }));
      const family = b.family ?? 'kerong-cu48';
      const sim = new SimulatedBus({ name, family, boards, autoCloseMs: this.options.autoCloseMs, random: this.random });
      this.sims.set(name, sim);
      const endpoint = new TcpEndpoint(this.host, b.port ?? 0, (chunk) => sim.input(chunk));
      sim.on('output', (chunk) => endpoint.write(chunk));
      await endpoint.start();
      this.endpoints.push(endpoint);
      const info: SimBusInfo = { name, family, url: endpoint.url, boards: boards.map((x) => ({ address: x.address, polarity: x.polarity ?? 'normal' })) };
      if (b.pty) info.ptyPath = await this.startPty(b.pty, `bus-${name}`, endpoint.listeningPort);
      this.buses.push(info);
    }
    if (this.options.scanner !== false) {
      const s = this.options.scanner ?? {};
      const scanner = new SimulatedScanner({ suffix: s.suffix ?? 'crlf', aimPrefix: s.aimPrefix, gapMs: s.gapMs ?? 200, random: this.random });
      this.scanner = scanner;
      const endpoint = new TcpEndpoint(this.host, s.port ?? 0, () => undefined);
      scanner.on('output', (chunk) => endpoint.write(chunk));
      await endpoint.start();
      this.endpoints.push(endpoint);
      this.scannerUrl = endpoint.url;
      if (s.pty) this.scannerPtyPath = await this.startPty(s.pty, 'scanner', endpoint.listeningPort);
    }
    if (this.options.http) {
      this.api = await startControlApi(this, { host: this.host, port: this.options.http.port ?? 0 });
      this.httpUrl = this.api.url;
    }
  }

  async stop(): Promise<void> {
    await this.api?.close();
    await Promise.all(this.ptys.map((p) => p.stop()));
    await Promise.all(this.endpoints.map((e) => e.stop()));
    for (const s of this.sims.values()) s.dispose();
    this.scanner?.removeAllListeners();
  }

  busConfig(name?: string, via: 'tcp' | 'pty' = 'tcp'): SimBusConfig {
    const info = name === undefined ? this.buses[0] : this.buses.find((b) => b.name === name);
    if (!info) throw new RangeError(`no simulated bus ${name ?? ''}`);
    const path = via === 'pty' ? info.ptyPath : info.url;
    if (!path) throw new RangeError(`bus ${info.name} has no pty`);
    return { name: info.name, path, family: info.family, boards: info.boards.map((b) => ({ address: b.address, polarity: b.polarity })) };
  }

  scannerConfig(via: 'tcp' | 'pty' = 'tcp'): SimScannerConfig {
    const path = via === 'pty' ? this.scannerPtyPath : this.scannerUrl;
    if (!path) throw new RangeError(`the simulator has no scanner ${via}`);
    return { path, suffix: this.scanner?.suffix === 'none' ? 'none' : 'auto' };
  }

  connect(target: { bus?: string } | 'scanner'): Transport {
    if (target === 'scanner') return new MemoryTransport('sim:scanner', this.requireScanner());
    const sim = this.bus(target.bus);
    return new MemoryTransport(`sim:${sim.name}`, sim);
  }

  openDoor(cell: SimCell): void {
    this.board(cell).openDoor(cell.lock);
  }

  closeDoor(cell: SimCell): boolean {
    return this.board(cell).closeDoor(cell.lock);
  }

  putItem(cell: SimCell): void {
    this.setItem(cell, true);
  }

  takeItem(cell: SimCell): void {
    this.setItem(cell, false);
  }

  isOpen(cell: SimCell): boolean {
    return this.board(cell).lock(cell.lock).open;
  }

  pulses(cell: SimCell): number {
    return this.board(cell).lock(cell.lock).pulses;
  }

  dropConnections(): void {
    for (const e of this.endpoints) e.dropClients();
  }

  scan(barcode: string, opts?: ScanOptions): Promise<void> {
    return this.requireScanner().scan(barcode, opts);
  }

  sendScannerGarbage(): void {
    this.requireScanner().sendGarbage();
  }

  setFault(input: SimFault): void {
    this.applyFault(simFaultSchema.parse(input), true);
  }

  clearFault(input: SimFault): void {
    this.applyFault(simFaultSchema.parse(input), false);
  }

  clearFaults(): void {
    for (const sim of this.sims.values()) {
      sim.noiseBytes = 0;
      for (const b of sim.boards.values()) {
        b.noReply = 0;
        b.badChecksum = 0;
        for (const l of b.locks) {
          l.jammed = false;
          l.leftOpen = false;
        }
      }
    }
    if (this.scanner) this.scanner.garbage = false;
  }

  state(): SimulatorState {
    return { buses: [...this.sims.values()].map((s) => s.state()), scanner: this.scanner?.state() ?? null };
  }

  private applyFault(f: SimFault, on: boolean): void {
    switch (f.kind) {
      case 'jammed':
        this.board(f).lock(f.lock).jammed = on;
        return;
      case 'door-left-open':
        this.board(f).lock(f.lock).leftOpen = on;
        return;
      case 'no-reply':
        this.board(f).noReply = on ? (f.count ?? Infinity) : 0;
        return;
      case 'bad-checksum':
        this.board(f).badChecksum = on ? (f.count ?? Infinity) : 0;
        return;
      case 'noise':
        this.bus(f.bus).noiseBytes = on ? (f.bytes ?? 4) : 0;
        return;
      case 'scanner-garbage':
        this.requireScanner().garbage = on;
        return;
    }
  }

  private setItem(cell: SimCell, present: boolean): void {
    const board = this.board(cell);
    const lock = board.lock(cell.lock);
    if (!lock.open) throw new RangeError(`door ${cell.board}/${cell.lock} is closed`);
    lock.item = present;
  }

  private bus(name?: string): SimulatedBus {
    const sim = name === undefined ? this.sims.values().next().value : this.sims.get(name);
    if (!sim) throw new RangeError(`no simulated bus ${name ?? ''}`);
    return sim;
  }

  private board(ref: { bus?: string; board: number }): ReturnType<SimulatedBus['board']> {
    return this.bus(ref.bus).board(ref.board);
  }

  private requireScanner(): SimulatedScanner {
    if (!this.scanner) throw new RangeError('the simulator has no scanner');
    return this.scanner;
  }

  private async startPty(option: true | string, label: string, port: number): Promise<string> {
    const path = typeof option === 'string' ? option : join(tmpdir(), `locker-sim-${process.pid}-${port}-${label}`);
    const link = new PtyLink(path, port, this.host);
    this.ptys.push(link);
    await link.start();
    return path;
  }
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const sim = new Simulator(options);
  try {
    await sim.start();
  } catch (err) {
    await sim.stop();
    throw err;
  }
  return sim;
}
