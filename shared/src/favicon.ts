/**
 * The icon every page of the project shows (cloud, console, locker screen, demo receiver): a locker
 * front of 3×3 cells, drawn here as a 32×32 ICO so that no binary file needs keeping in sync.
 * ICO = ICONDIR + one ICONDIRENTRY + a 32-bit BMP (BITMAPINFOHEADER, BGRA rows bottom-up, AND mask).
 */

const SIZE = 32;
const FRAME: [number, number, number] = [0x1f, 0x3a, 0x5f];
const CELL: [number, number, number] = [0xe8, 0xee, 0xf5];
const DOOR: [number, number, number] = [0x2e, 0x9e, 0x6a];

function pixel(x: number, y: number): [number, number, number, number] {
  // A 1 px transparent margin, a frame, then three rows of three cells with 2 px walls.
  if (x < 1 || y < 1 || x >= SIZE - 1 || y >= SIZE - 1) return [0, 0, 0, 0];
  const inner = (v: number): number => v - 3;
  const ix = inner(x);
  const iy = inner(y);
  const span = SIZE - 6;
  if (ix < 0 || iy < 0 || ix >= span || iy >= span) return [...FRAME, 255];
  const step = span / 3;
  const cx = Math.floor(ix / step);
  const cy = Math.floor(iy / step);
  const wall = ix - cx * step < 2 || iy - cy * step < 2;
  if (wall) return [...FRAME, 255];
  return [...(cx === 2 && cy === 1 ? DOOR : CELL), 255];
}

function buildIco(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let row = 0; row < SIZE; row++) {
    const y = SIZE - 1 - row; // BMP rows go bottom-up
    for (let x = 0; x < SIZE; x++) {
      const [r, g, b, a] = pixel(x, y);
      pixels.set([b, g, r, a], (row * SIZE + x) * 4);
    }
  }
  const mask = Buffer.alloc(SIZE * 4); // 1 bit per pixel, rows padded to 4 bytes; alpha decides
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(SIZE, 4);
  header.writeInt32LE(SIZE * 2, 8); // colour rows plus mask rows
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  header.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([header, pixels, mask]);
  const dir = Buffer.alloc(6 + 16);
  dir.writeUInt16LE(1, 2); // type: icon
  dir.writeUInt16LE(1, 4); // one image
  dir.writeUInt8(SIZE, 6);
  dir.writeUInt8(SIZE, 7);
  dir.writeUInt16LE(1, 10);
  dir.writeUInt16LE(32, 12);
  dir.writeUInt32LE(image.length, 14);
  dir.writeUInt32LE(dir.length, 18);
  return Buffer.concat([dir, image]);
}

/** The ICO bytes, built once. */
export const FAVICON_ICO: Buffer = buildIco();
export const FAVICON_CONTENT_TYPE = 'image/x-icon';
