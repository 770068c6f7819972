/**
 * The signed release artifact of the locker agent (docs/updates.md): one file that the operator
 * signs on their own machine (`cloud/src/cli.ts release sign`), uploads to the cloud, and that
 * every agent verifies before it stages anything.
 *
 *   PLREL1\n                        magic line (format 1)
 *   <manifest JSON>\n               one line of UTF-8: exactly the bytes that are signed
 *   <signature, base64>\n           Ed25519 over SIGNED_PREFIX + the manifest bytes
 *   <payload>                       gzip of the release's files, concatenated in manifest order
 *
 * The manifest names the payload's size and SHA-256 and each file's path, size and SHA-256, so
 * one signature covers every byte; a truncated, extended or altered artifact fails the check.
 * No I/O here: the callers read files and sockets; this module parses and checks bytes.
 */
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';

export const RELEASE_MAGIC = 'PLREL1\n';
/** Written beside the staged files: the manifest the release was verified against. */
export const RELEASE_MANIFEST_FILE = 'release.json';
/** Signed ahead of the manifest, so a signature over this format is never valid for anything else. */
const SIGNED_PREFIX = 'parcel-locker-release/1\n';
/** What a release contains: the locker agent (the only product so far). */
export const RELEASE_PRODUCT = 'parcel-locker-agent';
/** The head (magic, manifest, signature) is at most this long: a parser never buffers more. */
export const MAX_RELEASE_HEAD_BYTES = 512 * 1024;
const MAX_FILES = 2_000;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'expected a lowercase SHA-256 hex digest');
/** `1.2.3` or `1.2.3-rc.1`: semantic versions without build metadata, compared by releaseVersionCompare(). */
export const releaseVersionSchema = z
  .string()
  .max(64)
  .regex(/^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})(-[0-9A-Za-z-]{1,20}(\.[0-9A-Za-z-]{1,20}){0,4})?$/, 'expected a version like 1.4.2 or 1.5.0-rc.1');
/** Relative paths of plain segments: no `..`, no absolute path, nothing a careless unpacker could misplace. */
const releasePath = z
  .string()
  .max(200)
  .regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}(\/[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}){0,7}$/, 'expected a relative path of plain names')
  .refine((p) => !p.split('/').some((s) => s === '.' || s === '..'), 'no . or .. segments')
  .refine((p) => p !== RELEASE_MANIFEST_FILE, 'release.json is written by the agent');
export const KEY_ID = /^[0-9a-f]{16}$/;

export const releaseManifestSchema = z
  .object({
    format: z.literal(1),
    product: z.literal(RELEASE_PRODUCT),
    version: releaseVersionSchema,
    /** The lowest link protocol version (shared/src/protocol.ts) this agent needs of the cloud. */
    minProtocol: z.number().int().min(1).max(1_000),
    /** Node.js versions the agent runs on (a semver range such as `>=20.19`); absent: any. */
    node: z.string().max(64).regex(/^[0-9A-Za-z.<>=^~| -]+$/).optional(),
    /**
     * Versions this release may replace although they are newer: a signed rollback. Empty or
     * absent, an agent refuses it when it runs anything newer than `version`.
     */
    rollbackFrom: z.array(releaseVersionSchema).max(50).default([]),
    /**
     * The agent's SQLite store as this release leaves it: its schema number, and the oldest schema
     * whose agents can still use it (an agent older than that refuses the release, since it could
     * not run on the store if the release were rolled back).
     */
    store: z.object({ schema: z.number().int().min(1).max(100_000), compatibleFrom: z.number().int().min(1).max(100_000) }).optional(),
    /** Key that signed it (keyIdOf()). */
    keyId: z.string().regex(KEY_ID),
    createdAt: z.number().int().nonnegative(),
    notes: z.string().max(500).optional(),
    payload: z.object({ encoding: z.literal('gzip'), size: z.number().int().min(1), sha256: sha256Hex }),
    files: z
      .array(z.object({ path: releasePath, size: z.number().int().min(0), sha256: sha256Hex }))
      .min(1)
      .max(MAX_FILES)
      .refine((fs) => new Set(fs.map((f) => f.path)).size === fs.length, 'file paths must be unique')
      .refine((fs) => fs.some((f) => f.path === 'main.js'), 'the release has no main.js'),
  })
  .strict();
export type ReleaseManifest = z.output<typeof releaseManifestSchema>;

export class ReleaseError extends Error {
  override readonly name = 'ReleaseError';
  constructor(
    /** A closed reason (what an agent reports; what the cloud answers). */
    readonly reason: ReleaseRefusal,
    message: string,
  ) {
    super(message);
  }
}

/** Why an artifact is refused (agents report these; docs/updates.md lists them). */
export const RELEASE_REFUSALS = ['malformed', 'truncated', 'unknown_key', 'bad_signature', 'digest_mismatch', 'too_large'] as const;
export type ReleaseRefusal = (typeof RELEASE_REFUSALS)[number];

// ---------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------

/** A public key as the configs hold it: base64url of the 32 raw bytes of an Ed25519 key. */
export const publicKeyText = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'expected an Ed25519 public key: 43 characters of base64url');

export interface ReleaseKey {
  id: string;
  key: KeyObject;
}

/** The short id of a public key: the first 8 bytes of the SHA-256 of its raw bytes, hex. */
export function keyIdOf(publicKey: string): string {
  return createHash('sha256').update(Buffer.from(publicKey, 'base64url')).digest('hex').slice(0, 16);
}

export function releaseKey(publicKey: string): ReleaseKey {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey }, format: 'jwk' });
  return { id: keyIdOf(publicKey), key };
}

/** The public key (base64url) of an Ed25519 private key. */
export function publicKeyOf(privateKey: KeyObject): string {
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
  if (jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new Error('not an Ed25519 key');
  return jwk.x;
}

// ---------------------------------------------------------------------------------------------
// Writing (the operator's command line)
// ---------------------------------------------------------------------------------------------

export interface ReleaseFile {
  path: string;
  bytes: Buffer;
}

export interface ReleaseInput {
  version: string;
  minProtocol: number;
  node?: string | undefined;
  store?: { schema: number; compatibleFrom: number } | undefined;
  rollbackFrom?: string[] | undefined;
  notes?: string | undefined;
  createdAt: number;
  files: ReleaseFile[];
  /** gzip of the concatenated files (the caller compresses: zlib is I/O-free but slow to import here). */
  compress: (data: Buffer) => Buffer;
}

export const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** The artifact's bytes, signed with `privateKey` (an Ed25519 KeyObject). */
export function buildRelease(input: ReleaseInput, privateKey: KeyObject): Buffer {
  const files = [...input.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const payload = input.compress(Buffer.concat(files.map((f) => f.bytes)));
  const manifest = releaseManifestSchema.parse({
    format: 1,
    product: RELEASE_PRODUCT,
    version: input.version,
    minProtocol: input.minProtocol,
    ...(input.node ? { node: input.node } : {}),
    ...(input.store ? { store: input.store } : {}),
    rollbackFrom: input.rollbackFrom ?? [],
    keyId: keyIdOf(publicKeyOf(privateKey)),
    createdAt: input.createdAt,
    ...(input.notes ? { notes: input.notes } : {}),
    payload: { encoding: 'gzip', size: payload.length, sha256: sha256(payload) },
    files: files.map((f) => ({ path: f.path, size: f.bytes.length, sha256: sha256(f.bytes) })),
  });
  const manifestBytes = Buffer.from(JSON.stringify(manifest), 'utf8');
  const signature = sign(null, Buffer.concat([Buffer.from(SIGNED_PREFIX), manifestBytes]), privateKey);
  return Buffer.concat([Buffer.from(RELEASE_MAGIC), manifestBytes, Buffer.from('\n'), Buffer.from(signature.toString('base64')), Buffer.from('\n'), payload]);
}

// ---------------------------------------------------------------------------------------------
// Reading and checking
// ---------------------------------------------------------------------------------------------

export interface ReleaseHead {
  manifest: ReleaseManifest;
  /** The manifest exactly as signed (written beside the staged files). */
  manifestBytes: Buffer;
  signature: Buffer;
  /** Where the payload starts in the artifact. */
  payloadOffset: number;
}

/**
 * The head of an artifact from its first bytes (at least up to the end of the signature line;
 * MAX_RELEASE_HEAD_BYTES is always enough). Checks the form only: verifyReleaseHead() checks
 * the signature, verifyPayload() the rest.
 */
export function parseReleaseHead(start: Buffer): ReleaseHead {
  if (start.length < RELEASE_MAGIC.length) throw new ReleaseError('truncated', 'the artifact ends before its header');
  if (start.subarray(0, RELEASE_MAGIC.length).toString('latin1') !== RELEASE_MAGIC) throw new ReleaseError('malformed', 'not a release artifact (no PLREL1 header)');
  const manifestEnd = start.indexOf(0x0a, RELEASE_MAGIC.length);
  if (manifestEnd < 0) throw new ReleaseError(start.length >= MAX_RELEASE_HEAD_BYTES ? 'malformed' : 'truncated', 'the manifest line does not end');
  const signatureEnd = start.indexOf(0x0a, manifestEnd + 1);
  if (signatureEnd < 0) throw new ReleaseError(start.length >= MAX_RELEASE_HEAD_BYTES ? 'malformed' : 'truncated', 'the signature line does not end');
  if (signatureEnd >= MAX_RELEASE_HEAD_BYTES) throw new ReleaseError('malformed', 'the header is too long');
  const manifestBytes = Buffer.from(start.subarray(RELEASE_MAGIC.length, manifestEnd));
  const signatureText = start.subarray(manifestEnd + 1, signatureEnd).toString('latin1');
  if (!/^[A-Za-z0-9+/]{86}==$/.test(signatureText)) throw new ReleaseError('malformed', 'the signature line is not an Ed25519 signature');
  const signature = Buffer.from(signatureText, 'base64');
  // Only the one canonical text of the signature: the padding bits of base64 must be zero.
  if (signature.toString('base64') !== signatureText) throw new ReleaseError('malformed', 'the signature line is not canonical base64');
  let json: unknown;
  try {
    json = JSON.parse(manifestBytes.toString('utf8'));
  } catch {
    throw new ReleaseError('malformed', 'the manifest is not JSON');
  }
  const parsed = releaseManifestSchema.safeParse(json);
  if (!parsed.success) {
    throw new ReleaseError('malformed', `the manifest is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ').slice(0, 300)}`);
  }
  return { manifest: parsed.data, manifestBytes, signature, payloadOffset: signatureEnd + 1 };
}

/** Checks the signature with the key the manifest names; returns that key's id. */
export function verifyReleaseHead(head: ReleaseHead, keys: readonly ReleaseKey[]): string {
  const key = keys.find((k) => k.id === head.manifest.keyId);
  if (!key) throw new ReleaseError('unknown_key', `signed by key ${head.manifest.keyId}, which is not trusted here`);
  const ok = verify(null, Buffer.concat([Buffer.from(SIGNED_PREFIX), head.manifestBytes]), key.key, head.signature);
  if (!ok) throw new ReleaseError('bad_signature', 'the signature does not match the manifest');
  return key.id;
}

/** The artifact's whole length as the manifest implies it. */
export function releaseLength(head: ReleaseHead): number {
  return head.payloadOffset + head.manifest.payload.size;
}

/** Checks the payload's length and digest (against a verified head). */
export function verifyPayload(head: ReleaseHead, payloadLength: number, payloadSha256: string): void {
  const want = head.manifest.payload;
  if (payloadLength < want.size) throw new ReleaseError('truncated', `the payload has ${payloadLength} of ${want.size} bytes`);
  if (payloadLength > want.size) throw new ReleaseError('malformed', `the payload has ${payloadLength - want.size} bytes more than signed`);
  if (payloadSha256 !== want.sha256) throw new ReleaseError('digest_mismatch', 'the payload does not match its signed digest');
}

/**
 * A whole artifact in memory (the cloud's check of an upload): head, signature, payload length
 * and digest. Returns the verified head.
 */
export function verifyRelease(artifact: Buffer, keys: readonly ReleaseKey[]): ReleaseHead {
  const head = parseReleaseHead(artifact.subarray(0, MAX_RELEASE_HEAD_BYTES));
  verifyReleaseHead(head, keys);
  const payload = artifact.subarray(head.payloadOffset);
  verifyPayload(head, payload.length, sha256(payload));
  return head;
}

// ---------------------------------------------------------------------------------------------
// Versions
// ---------------------------------------------------------------------------------------------

function parts(v: string): { nums: number[]; pre: string[] } {
  const dash = v.indexOf('-');
  const core = dash < 0 ? v : v.slice(0, dash);
  return { nums: core.split('.').map(Number), pre: dash < 0 ? [] : v.slice(dash + 1).split('.') };
}

/** Semantic version order (a pre-release sorts before its release): negative, 0 or positive. */
export function releaseVersionCompare(a: string, b: string): number {
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) {
      const d = Number(p) - Number(q);
      if (d !== 0) return d;
    } else if (pn !== qn) return pn ? -1 : 1;
    else if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
}

/**
 * Whether an agent running `running` may install `manifest`: a newer version, or an older one
 * whose signed `rollbackFrom` names the running version. Null when allowed; else why not.
 */
export function installRefusal(manifest: Pick<ReleaseManifest, 'version' | 'rollbackFrom'>, running: string): 'same_version' | 'older_than_running' | null {
  const order = releaseVersionCompare(manifest.version, running);
  if (order > 0) return null;
  if (order === 0) return 'same_version';
  return manifest.rollbackFrom.includes(running) ? null : 'older_than_running';
}
