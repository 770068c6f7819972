/** The hardware simulator's library API (tests, the demo, the fleet runner). */
export {
  startSimulator,
  type SimulatorOptions,
  type SimulatorHandle,
  type SimulatorState,
  type SimBusOptions,
  type SimScannerOptions,
  type SimBusInfo,
  type SimBusConfig,
  type SimScannerConfig,
  type SimCell,
} from './simulator.js';
export { simFaultSchema, SIM_FAULT_KINDS, type SimFault, type SimFaultKind } from './faults.js';
export type { SimFamily } from './simulated-bus.js';
export type { ScanSuffix } from './simulated-scanner.js';
