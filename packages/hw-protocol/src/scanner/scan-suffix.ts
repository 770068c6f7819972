/**
 * A scan as a serial barcode scanner sends it: an optional AIM symbology identifier (`]C1`), the
 * barcode in ASCII, and the suffix the scanner is configured with. ScanFramer reads this back.
 */

export const SCAN_SUFFIXES = ['crlf', 'cr', 'lf', 'none'] as const;
export type ScanSuffix = (typeof SCAN_SUFFIXES)[number];

export const SCAN_SUFFIX_BYTES: Readonly<Record<ScanSuffix, string>> = { crlf: '\r\n', cr: '\r', lf: '\n', none: '' };

/** The bytes of one scan. */
export function encodeScan(barcode: string, suffix: ScanSuffix, aimPrefix = ''): Buffer {
  return Buffer.from(`${aimPrefix}${barcode}${SCAN_SUFFIX_BYTES[suffix]}`, 'latin1');
}
