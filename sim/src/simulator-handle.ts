/**
 * What a running simulator offers its users (tests, the demo, the control API), apart from the
 * class that implements it, so that the control API can take a handle without importing the
 * simulator that starts it.
 */
import type { ScanFramerOptions, Transport } from '@parcel-locker/hw-protocol';
import type { SimFault } from './faults.js';
import type { Polarity } from './lock-board.js';
import type { SimBusState, SimFamily } from './simulated-bus.js';
import type { ScanOptions, SimulatedScanner } from './simulated-scanner.js';

/** A lock on the simulator; `bus` defaults to the first bus. */
export interface SimCell {
  bus?: string;
  board: number;
  lock: number;
}

export interface SimBusInfo {
  name: string;
  family: SimFamily;
  url: string;
  ptyPath?: string;
  boards: { address: number; polarity: Polarity }[];
}

/** The settings an agent needs to reach a simulated bus; its bus settings take them as they are. */
export interface SimBusConfig {
  name: string;
  /** tcp://host:port or the pty's path. */
  path: string;
  family: SimFamily;
  boards: { address: number; polarity: Polarity }[];
}

/** The settings an agent needs to read the simulated scanner. */
export interface SimScannerConfig {
  path: string;
  suffix: ScanFramerOptions['suffix'];
}

export interface SimulatorState {
  buses: SimBusState[];
  scanner: ReturnType<SimulatedScanner['state']> | null;
}

export interface SimulatorHandle {
  readonly buses: SimBusInfo[];
  readonly scannerUrl?: string;
  readonly scannerPtyPath?: string;
  readonly httpUrl?: string;
  /** Bus settings for the agent; `via` picks the TCP URL (default) or the pty path. */
  busConfig(name?: string, via?: 'tcp' | 'pty'): SimBusConfig;
  scannerConfig(via?: 'tcp' | 'pty'): SimScannerConfig;
  /** An in-process pipe to a bus or the scanner (tests with fake timers). */
  connect(target: { bus?: string } | 'scanner'): Transport;
  openDoor(cell: SimCell): void;
  /** false when the door-left-open fault keeps it open. */
  closeDoor(cell: SimCell): boolean;
  putItem(cell: SimCell): void;
  takeItem(cell: SimCell): void;
  scan(barcode: string, opts?: ScanOptions): Promise<void>;
  sendScannerGarbage(): void;
  setFault(fault: SimFault): void;
  clearFault(fault: SimFault): void;
  clearFaults(): void;
  /** Door open? */
  isOpen(cell: SimCell): boolean;
  /** Unlock pulses the lock has received. */
  pulses(cell: SimCell): number;
  /** Drops every TCP client (a bridge restarting); the ports keep listening. */
  dropConnections(): void;
  state(): SimulatorState;
  stop(): Promise<void>;
}

