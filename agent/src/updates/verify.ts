/**
 * Verification and staging of a downloaded artifact (shared/src/release.ts), reading the file as
 * a stream (an artifact may be larger than what a controller wants in memory):
 *
 * - verifyArtifact: the whole file's length and SHA-256 against the offer; the head's form and
 *   Ed25519 signature against the configured keys; the payload's length and digest against the
 *   signed manifest; then what this locker needs of the release (a newer version or a signed
 *   rollback from this one, its Node.js, the link protocol and the store schema).
 * - stageRelease: unpacks a verified artifact into a staging folder beside the slots, checks each
 *   file's length and digest, writes the manifest beside them as release.json, flushes every file
 *   and renames the folder into its slot, so a slot is complete or absent.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, fsyncSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { PROTOCOL_VERSION, type UpdateOffer, type UpdateReason } from '../../../shared/src/protocol.js';
import {
  MAX_RELEASE_HEAD_BYTES,
  RELEASE_MANIFEST_FILE,
  ReleaseError,
  installRefusal,
  parseReleaseHead,
  verifyPayload,
  verifyReleaseHead,
  type ReleaseHead,
  type ReleaseKey,
} from '../../../shared/src/release.js';
import { nodeSatisfies } from './node-range.js';
import { fsyncDir } from './atomic-file.js';
import { announceStep } from './update-steps.js';

export class RefusedRelease extends Error {
  override readonly name = 'RefusedRelease';
  constructor(
    readonly reason: UpdateReason,
    message: string,
  ) {
    super(message);
  }
}

export interface LockerSoftware {
  /** The version the agent runs. */
  running: string;
  /** process.versions.node */
  node: string;
  /** The store schema this agent knows (agent/src/store/database.ts). */
  storeSchema: number;
}

function readHead(path: string, size: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(Math.min(size, MAX_RELEASE_HEAD_BYTES));
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Both digests in one read: the whole file's and the payload's (from `payloadOffset`). */
async function digests(path: string, payloadOffset: number): Promise<{ whole: string; payload: string; payloadLength: number }> {
  const whole = createHash('sha256');
  const payload = createHash('sha256');
  let pos = 0;
  let payloadLength = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
    whole.update(chunk);
    const end = pos + chunk.length;
    if (end > payloadOffset) {
      const part = chunk.subarray(Math.max(0, payloadOffset - pos));
      payload.update(part);
      payloadLength += part.length;
    }
    pos = end;
  }
  return { whole: whole.digest('hex'), payload: payload.digest('hex'), payloadLength };
}

/** Throws RefusedRelease with the reason an agent reports. */
export async function verifyArtifact(path: string, offer: Pick<UpdateOffer, 'sha256' | 'size' | 'version'>, keys: readonly ReleaseKey[], software: LockerSoftware): Promise<ReleaseHead> {
  const size = statSync(path).size;
  if (size < offer.size) throw new RefusedRelease('truncated', `the artifact has ${size} of ${offer.size} bytes`);
  if (size > offer.size) throw new RefusedRelease('malformed', `the artifact has ${size - offer.size} bytes more than offered`);
  let head: ReleaseHead;
  try {
    head = parseReleaseHead(readHead(path, size));
    verifyReleaseHead(head, keys);
    const d = await digests(path, head.payloadOffset);
    verifyPayload(head, d.payloadLength, d.payload);
    // The signature holds and so do the payload's digests: a different whole is a different artifact.
    if (d.whole !== offer.sha256) throw new ReleaseError('digest_mismatch', 'the artifact is not the one offered');
  } catch (err) {
    if (err instanceof ReleaseError) throw new RefusedRelease(err.reason, err.message);
    throw err;
  }
  const m = head.manifest;
  if (m.version !== offer.version) throw new RefusedRelease('malformed', `the artifact is version ${m.version}, offered as ${offer.version}`);
  const refusal = installRefusal(m, software.running);
  if (refusal) throw new RefusedRelease(refusal, `${m.version} is not newer than the running ${software.running} and not a rollback from it`);
  if (m.node && !nodeSatisfies(software.node, m.node)) throw new RefusedRelease('node_unsupported', `the release needs Node.js ${m.node}; this is ${software.node}`);
  if (m.minProtocol > PROTOCOL_VERSION) throw new RefusedRelease('protocol_unsupported', `the release needs link protocol ${m.minProtocol}; the cloud speaks ${PROTOCOL_VERSION}`);
  if (m.store && m.store.compatibleFrom > software.storeSchema) {
    throw new RefusedRelease('store_incompatible', `the release leaves a store this agent (schema ${software.storeSchema}) could not use again (needs ${m.store.compatibleFrom})`);
  }
  announceStep('verify', { version: m.version });
  return head;
}

/** Unpacks a verified artifact into `slotDir` (created whole or not at all). */
export async function stageRelease(path: string, head: ReleaseHead, slotDir: string): Promise<void> {
  const staging = join(dirname(slotDir), `.staging-${slotDir.slice(dirname(slotDir).length + 1)}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const files = head.manifest.files;
  const total = files.reduce((n, f) => n + f.size, 0);
  let index = 0;
  let fd: number | undefined;
  let left = 0;
  let hash = createHash('sha256');
  let produced = 0;
  const openNext = (): void => {
    while (index < files.length) {
      const f = files[index]!;
      const target = join(staging, f.path);
      mkdirSync(dirname(target), { recursive: true });
      fd = openSync(target, 'w', 0o644);
      left = f.size;
      hash = createHash('sha256');
      if (left > 0) return;
      closeFile();
    }
  };
  const closeFile = (): void => {
    const f = files[index]!;
    fsyncSync(fd!);
    closeSync(fd!);
    fd = undefined;
    if (hash.digest('hex') !== f.sha256) throw new RefusedRelease('digest_mismatch', `${f.path} does not match its signed digest`);
    index += 1;
    if (index === Math.ceil(files.length / 2)) announceStep('stage', { version: head.manifest.version });
  };
  try {
    openNext();
    const gunzip = createReadStream(path, { start: head.payloadOffset }).pipe(createGunzip());
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      produced += chunk.length;
      if (produced > total) throw new RefusedRelease('malformed', 'the payload unpacks to more bytes than its files');
      let at = 0;
      while (at < chunk.length) {
        if (fd === undefined) throw new RefusedRelease('malformed', 'the payload unpacks to more bytes than its files');
        const n = Math.min(left, chunk.length - at);
        const part = chunk.subarray(at, at + n);
        writeSync(fd, part);
        hash.update(part);
        left -= n;
        at += n;
        if (left === 0) {
          closeFile();
          openNext();
        }
      }
    }
    if (index < files.length) throw new RefusedRelease('truncated', 'the payload unpacks to fewer bytes than its files');
    const manifestFd = openSync(join(staging, RELEASE_MANIFEST_FILE), 'w', 0o644);
    try {
      writeSync(manifestFd, head.manifestBytes);
      fsyncSync(manifestFd);
    } finally {
      closeSync(manifestFd);
    }
    for (const dir of new Set(files.map((f) => dirname(join(staging, f.path))))) fsyncDir(dir);
    rmSync(slotDir, { recursive: true, force: true });
    renameSync(staging, slotDir);
    fsyncDir(dirname(slotDir));
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    rmSync(staging, { recursive: true, force: true });
    if (err instanceof RefusedRelease) throw err;
    if (err instanceof Error && /incorrect header|unexpected end|invalid/.test(err.message)) throw new RefusedRelease('malformed', `the payload does not unpack: ${err.message}`);
    throw err;
  }
}
