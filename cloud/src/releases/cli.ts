/**
 * The operator's release commands (docs/updates.md), run on the operator's own machine as
 * `npx tsx cloud/src/cli.ts release ...`:
 *
 *   release keygen --out FILE             a new Ed25519 signing key (PKCS#8 PEM, mode 0600); prints its public key
 *   release sign --dir dist/agent --version X.Y.Z (--key-file FILE | --key-stdin) --out FILE
 *                [--rollback-from A,B] [--min-protocol N] [--node RANGE] [--notes TEXT] [--with-source-maps]
 *   release inspect FILE                  prints the manifest (checks nothing)
 *   release verify FILE --public-key KEY [--public-key KEY]   checks the signature and every digest
 *   release upload FILE                   sends it to the cloud at CLOUD_URL with OPERATOR_API_KEY
 *
 * The private key is read from a file only its owner can read, or from standard input; never
 * from an argument (arguments are visible to every user of the machine and kept in shell history).
 */
import { generateKeyPairSync, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { PROTOCOL_VERSION } from '../../../shared/src/protocol.js';
import {
  MAX_RELEASE_HEAD_BYTES,
  buildRelease,
  keyIdOf,
  parseReleaseHead,
  publicKeyOf,
  publicKeyText,
  releaseKey,
  releaseVersionSchema,
  sha256,
  verifyRelease,
  type ReleaseFile,
} from '../../../shared/src/release.js';

export const RELEASE_USAGE =
  'release keygen --out FILE | release sign --dir DIR --version X.Y.Z (--key-file FILE | --key-stdin) --out FILE [--rollback-from A,B] [--min-protocol N] [--node RANGE] [--notes TEXT] [--with-source-maps] | release inspect FILE | release verify FILE --public-key KEY | release upload FILE';

export interface CliIo {
  log(line: string): void;
  error(line: string): void;
  /** Standard input, read whole (the key for --key-stdin). */
  stdin(): Promise<Buffer>;
  env: Record<string, string | undefined>;
}

const BOOLEAN_FLAGS = new Set(['key-stdin', 'with-source-maps']);
/** Flags that would put a private key on the command line. */
const REFUSED_FLAGS = new Set(['key', 'private-key', 'signing-key', 'secret']);

class UsageError extends Error {}

function parse(args: readonly string[]): { flags: Map<string, string[]>; rest: string[] } {
  const flags = new Map<string, string[]>();
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) {
      rest.push(a);
      continue;
    }
    const [name, inline] = a.slice(2).split('=', 2) as [string, string | undefined];
    if (REFUSED_FLAGS.has(name)) throw new UsageError(`--${name}: a private key is never taken as an argument; use --key-file FILE (mode 0600) or --key-stdin`);
    const value = BOOLEAN_FLAGS.has(name) ? 'true' : (inline ?? args[++i]);
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { flags, rest };
}

function one(flags: Map<string, string[]>, name: string): string | undefined {
  return flags.get(name)?.at(-1);
}

function required(flags: Map<string, string[]>, name: string): string {
  const v = one(flags, name);
  if (!v) throw new UsageError(`--${name} is required`);
  return v;
}

/** A key file must be a regular file that only its owner can read or write. */
export function readKeyFile(path: string): Buffer {
  const st = statSync(path);
  if (!st.isFile()) throw new UsageError(`${path} is not a file`);
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
    throw new UsageError(`${path} can be read by others (mode ${(st.mode & 0o777).toString(8)}): chmod 600 ${path}`);
  }
  return readFileSync(path);
}

function privateKeyFrom(pem: Buffer): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new UsageError('the signing key is not a PEM private key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new UsageError(`the signing key is ${key.asymmetricKeyType ?? 'not asymmetric'}, not Ed25519`);
  return key;
}

/** Every file under `dir` that goes into a release (not the launcher, not a stale manifest, maps only when asked). */
export function releaseFiles(dir: string, withSourceMaps: boolean): ReleaseFile[] {
  const out: ReleaseFile[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const path = relative(dir, full).split(sep).join('/');
        if (path === 'launcher.js' || path === 'release.json') continue;
        if (!withSourceMaps && path.endsWith('.map')) continue;
        out.push({ path, bytes: readFileSync(full) });
      }
    }
  };
  walk(dir);
  return out;
}

interface BuildInfo {
  protocol?: number;
  store?: { schema: number; compatibleFrom: number };
  node?: string;
}

function buildInfo(dir: string): BuildInfo {
  try {
    return JSON.parse(readFileSync(join(dir, 'build.json'), 'utf8')) as BuildInfo;
  } catch {
    return {};
  }
}

async function sign(flags: Map<string, string[]>, io: CliIo): Promise<number> {
  const dir = required(flags, 'dir');
  const out = required(flags, 'out');
  const version = releaseVersionSchema.safeParse(required(flags, 'version'));
  if (!version.success) throw new UsageError(`--version: ${version.error.issues[0]?.message ?? 'invalid'}`);
  const rollbackFrom = (one(flags, 'rollback-from') ?? '').split(',').map((v) => v.trim()).filter(Boolean);
  for (const v of rollbackFrom) if (!releaseVersionSchema.safeParse(v).success) throw new UsageError(`--rollback-from: ${v} is not a version`);
  const keyFile = one(flags, 'key-file');
  const fromStdin = one(flags, 'key-stdin') === 'true';
  if (!keyFile === !fromStdin) throw new UsageError('give the signing key with exactly one of --key-file FILE or --key-stdin');
  const key = privateKeyFrom(keyFile ? readKeyFile(keyFile) : await io.stdin());
  const info = buildInfo(dir);
  const minProtocol = Number(one(flags, 'min-protocol') ?? info.protocol ?? PROTOCOL_VERSION);
  if (!Number.isInteger(minProtocol) || minProtocol < 1) throw new UsageError('--min-protocol must be a positive integer');
  const files = releaseFiles(dir, one(flags, 'with-source-maps') === 'true');
  if (!files.some((f) => f.path === 'main.js')) throw new UsageError(`${dir} has no main.js: build it first (npm run build:agent)`);
  const artifact = buildRelease(
    {
      version: version.data,
      minProtocol,
      node: one(flags, 'node') ?? info.node,
      store: info.store,
      rollbackFrom,
      notes: one(flags, 'notes'),
      createdAt: Date.now(),
      files,
      compress: (data) => gzipSync(data, { level: 9 }),
    },
    key,
  );
  writeFileSync(out, artifact);
  io.log(`signed ${out}: version ${version.data}, ${files.length} files, ${artifact.length} bytes, sha256 ${sha256(artifact)}, key ${keyIdOf(publicKeyOf(key))}`);
  return 0;
}

function keygen(flags: Map<string, string[]>, io: CliIo): number {
  const out = required(flags, 'out');
  const { privateKey } = generateKeyPairSync('ed25519');
  // 'wx': never overwrite a key; 0600: only the owner reads it.
  writeFileSync(out, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
  const pub = publicKeyOf(privateKey);
  io.log(`private key: ${out} (mode 0600; keep it off the servers)`);
  io.log(`public key:  ${pub}`);
  io.log(`key id:      ${keyIdOf(pub)}`);
  io.log('put the public key in every agent config (updates.publicKeys) and in the cloud (RELEASE_PUBLIC_KEYS)');
  return 0;
}

function inspect(file: string, io: CliIo): number {
  const bytes = readFileSync(file);
  const head = parseReleaseHead(bytes.subarray(0, MAX_RELEASE_HEAD_BYTES));
  io.log(JSON.stringify({ file, bytes: bytes.length, sha256: sha256(bytes), manifest: head.manifest }, null, 2));
  return 0;
}

function verifyFile(file: string, flags: Map<string, string[]>, io: CliIo): number {
  const keys = flags.get('public-key') ?? [];
  if (keys.length === 0) throw new UsageError('--public-key is required (one or more)');
  for (const k of keys) if (!publicKeyText.safeParse(k).success) throw new UsageError(`--public-key ${k}: not an Ed25519 public key`);
  const head = verifyRelease(readFileSync(file), keys.map(releaseKey));
  io.log(`ok: ${file} is version ${head.manifest.version}, signed by ${head.manifest.keyId}, ${head.manifest.files.length} files`);
  return 0;
}

async function upload(file: string, io: CliIo): Promise<number> {
  const url = io.env.CLOUD_URL;
  const key = io.env.OPERATOR_API_KEY;
  if (!url || !key) throw new UsageError('set CLOUD_URL (e.g. https://cloud.example) and OPERATOR_API_KEY in the environment');
  const artifact = readFileSync(file).toString('base64');
  const res = await fetch(new URL('/operator/releases', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-operator-api-key': key },
    body: JSON.stringify({ artifact }),
  });
  const text = await res.text();
  if (!res.ok) {
    io.error(`the cloud refused the release (${res.status}): ${text.slice(0, 500)}`);
    return 1;
  }
  io.log(text);
  return 0;
}

/** Returns the process exit code. */
export async function runReleaseCli(args: readonly string[], io: CliIo): Promise<number> {
  try {
    const [command = '', ...tail] = args;
    const { flags, rest } = parse(tail);
    switch (command) {
      case 'keygen':
        return keygen(flags, io);
      case 'sign':
        return await sign(flags, io);
      case 'inspect':
        if (rest[0]) return inspect(rest[0], io);
        break;
      case 'verify':
        if (rest[0]) return verifyFile(rest[0], flags, io);
        break;
      case 'upload':
        if (rest[0]) return await upload(rest[0], io);
        break;
      default:
        break;
    }
    io.error(`usage: cli.ts ${RELEASE_USAGE}`);
    return 2;
  } catch (err) {
    if (err instanceof UsageError) {
      io.error(err.message);
      return 2;
    }
    io.error(err instanceof Error ? err.message : String(err));
    return 1;
  }
}
