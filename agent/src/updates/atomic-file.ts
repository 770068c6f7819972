/**
 * Files that survive a power cut whole or not at all: written to a temporary name, flushed to the
 * disk, renamed over the old one, and the directory flushed so the rename itself is durable.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Flushes a directory's entries (a rename or a new file in it) to the disk. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function writeFileAtomic(path: string, data: string | Buffer): void {
  const tmp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}`);
  const fd = openSync(tmp, 'w', 0o640);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}

/** The JSON of a file, or undefined when it does not exist or does not parse. */
export function readJsonIfAny(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function removeDurably(path: string): void {
  rmSync(path, { recursive: true, force: true });
  fsyncDir(dirname(path));
}
