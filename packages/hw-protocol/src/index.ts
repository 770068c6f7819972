/**
 * @parcel-locker/hw-protocol: the wire protocols of the lock boards and the barcode scanner, pure
 * bytes with no I/O, imported by the agent (which drives real hardware) and by the simulator (which
 * plays it). A family's codec is also its own entry point: `@parcel-locker/hw-protocol/kerong-cu48`,
 * `/kerong-cu16`, `/winnsen`, `/generic-24`.
 */
export { BOARD_FAMILIES, BoardFamily } from './families.js';
export { bitsOf, hex, packBits, sum8, xor8 } from './bytes.js';
export { FrameDecoder, type DecodeEvent, type FrameParser, type ParseResult } from './frame-decoder.js';
export type { BoardDriver, BusLink, FrameRequest, RawBoardStatus, SendRequest } from './driver.js';
export { driverFor } from './drivers.js';
export { HardwareError, isHardwareError, type HardwareErrorCode } from './errors.js';
export type { Transport, TransportEvents } from './transport.js';
export { ScanFramer, stripAimPrefix, type DiscardReason, type ScanFramerEvents, type ScanFramerOptions } from './scanner/scan-framer.js';
export { encodeScan, SCAN_SUFFIX_BYTES, SCAN_SUFFIXES, type ScanSuffix } from './scanner/scan-suffix.js';
