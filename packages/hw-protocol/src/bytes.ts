/** Byte helpers the board codecs share. */

/** Low byte of the sum of `bytes` (Kerong SUM). */
export function sum8(bytes: ArrayLike<number>, end = bytes.length): number {
  let s = 0;
  for (let i = 0; i < end; i++) s += bytes[i] ?? 0;
  return s & 0xff;
}

/** XOR of `bytes` (generic 24-channel boards). */
export function xor8(bytes: ArrayLike<number>, end = bytes.length): number {
  let x = 0;
  for (let i = 0; i < end; i++) x ^= bytes[i] ?? 0;
  return x & 0xff;
}

/** Bits of `bytes` as booleans, least significant bit of the first byte first. */
export function bitsOf(bytes: ArrayLike<number>, count = bytes.length * 8): boolean[] {
  const out: boolean[] = [];
  for (let i = 0; i < count; i++) out.push((((bytes[i >> 3] ?? 0) >> (i & 7)) & 1) === 1);
  return out;
}

/** Packs booleans into bytes, first boolean into bit 0 of the first byte. */
export function packBits(bits: readonly boolean[], byteCount: number): number[] {
  const out = new Array<number>(byteCount).fill(0);
  bits.forEach((b, i) => {
    if (b && i >> 3 < byteCount) out[i >> 3] = (out[i >> 3] ?? 0) | (1 << (i & 7));
  });
  return out;
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex').replace(/(..)(?!$)/g, '$1 ').toUpperCase();
}
