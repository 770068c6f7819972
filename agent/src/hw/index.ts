/** The locker's hardware layer: lock buses and the barcode scanner. */
export {
  busConfigSchema,
  boardConfigSchema,
  scannerConfigSchema,
  portPathSchema,
  FAMILY_DEFAULTS,
  busFraming,
  boardLockCount,
  type BusConfig,
  type BusConfigInput,
  type BoardConfig,
  type ScannerConfig,
  type ScannerConfigInput,
  type SerialFraming,
} from './config.js';
export { HardwareError, isHardwareError, type HardwareErrorCode } from '@parcel-locker/hw-protocol';
export type { CellAddress, OpenResult, BoardEvent, BoardStatus, LockHardware, ScannerReader } from './types.js';
export { createLockHardware, LockController, type LockHardwareOptions } from './lock-controller.js';
export type { BusObserver } from './bus.js';
export { createScanner, type ScannerOptions } from './scanner/scanner.js';
export { createTransport } from './transport/create.js';
export type { Transport } from '@parcel-locker/hw-protocol';
