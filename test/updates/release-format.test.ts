/**
 * The signed release format (shared/src/release.ts) and the operator's command line that makes
 * and checks it (cloud/src/releases/cli.ts): what verifies, what is refused and why (every bit of
 * an artifact matters, a cut one, another key), the version rule (newer, or a signed rollback),
 * and the private key's handling (a file only its owner reads, or stdin; never an argument).
 */
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReleaseCli, type CliIo } from '../../cloud/src/releases/cli.js';
import {
  buildRelease,
  installRefusal,
  keyIdOf,
  parseReleaseHead,
  publicKeyOf,
  releaseKey,
  releaseVersionCompare,
  ReleaseError,
  verifyRelease,
  type ReleaseInput,
} from '../../shared/src/release.js';

const { privateKey } = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519').privateKey;
const KEY = releaseKey(publicKeyOf(privateKey));

function input(version: string, extra: Partial<ReleaseInput> = {}): ReleaseInput {
  return {
    version,
    minProtocol: 1,
    createdAt: 1_900_000_000_000,
    files: [
      { path: 'main.js', bytes: Buffer.from('console.log("agent")\n'.repeat(50)) },
      { path: 'public/index.html', bytes: Buffer.from('<html></html>') },
      { path: 'chunks/empty.js', bytes: Buffer.alloc(0) },
    ],
    compress: (d) => gzipSync(d),
    ...extra,
  };
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof ReleaseError) return err.reason;
    throw err;
  }
  return 'accepted';
}

describe('the release format', () => {
  const artifact = buildRelease(input('1.2.0'), privateKey);

  it('verifies with the signing key and names the files, sizes and digests', () => {
    const head = verifyRelease(artifact, [KEY]);
    expect(head.manifest).toMatchObject({ product: 'parcel-locker-agent', version: '1.2.0', keyId: keyIdOf(publicKeyOf(privateKey)), rollbackFrom: [] });
    expect(head.manifest.files.map((f) => f.path)).toEqual(['chunks/empty.js', 'main.js', 'public/index.html']);
  });

  it('refuses an artifact with any one bit flipped, whichever part it is in', () => {
    // Every bit of the header (magic, manifest, signature), then bits of the payload at random.
    const head = parseReleaseHead(artifact);
    for (let bit = 0; bit < head.payloadOffset * 8; bit++) {
      const copy = Buffer.from(artifact);
      copy[bit >> 3]! ^= 1 << (bit & 7);
      expect(refusal(() => verifyRelease(copy, [KEY])), `bit ${bit}`).not.toBe('accepted');
    }
    fc.assert(
      fc.property(fc.integer({ min: 0, max: artifact.length * 8 - 1 }), (bit) => {
        const copy = Buffer.from(artifact);
        copy[bit >> 3]! ^= 1 << (bit & 7);
        expect(refusal(() => verifyRelease(copy, [KEY]))).not.toBe('accepted');
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a cut artifact, an extended one, another key and a forged manifest', () => {
    expect(refusal(() => verifyRelease(artifact.subarray(0, artifact.length - 1), [KEY]))).toBe('truncated');
    expect(refusal(() => verifyRelease(artifact.subarray(0, 20), [KEY]))).toBe('truncated');
    expect(refusal(() => verifyRelease(Buffer.concat([artifact, Buffer.from('x')]), [KEY]))).toBe('malformed');
    expect(refusal(() => verifyRelease(buildRelease(input('1.2.0'), other), [KEY]))).toBe('unknown_key');
    expect(refusal(() => verifyRelease(Buffer.from('not a release'), [KEY]))).toBe('malformed');
    // The manifest of 9.9.9 with the signature of 1.2.0: the key id matches, the signature does not.
    const head = parseReleaseHead(artifact);
    const forged = Buffer.from(artifact.toString('latin1').replace('"version":"1.2.0"', '"version":"9.9.9"'), 'latin1');
    expect(head.manifest.version).toBe('1.2.0');
    expect(refusal(() => verifyRelease(forged, [KEY]))).toBe('bad_signature');
  });

  it('refuses paths that could land outside the slot', () => {
    for (const path of ['../main.js', '/etc/passwd', 'a/../../b', 'release.json', 'a//b', '.hidden/../x']) {
      expect(() => buildRelease(input('1.0.0', { files: [{ path: 'main.js', bytes: Buffer.from('x') }, { path, bytes: Buffer.from('x') }] }), privateKey), path).toThrow();
    }
  });

  it('orders versions as semantic versions, and allows only newer ones or a signed rollback', () => {
    const sorted = ['0.9.9', '1.0.0-rc.1', '1.0.0-rc.2', '1.0.0', '1.0.1', '1.10.0', '2.0.0'];
    for (let i = 1; i < sorted.length; i++) expect(releaseVersionCompare(sorted[i - 1]!, sorted[i]!), `${sorted[i - 1]} < ${sorted[i]}`).toBeLessThan(0);
    expect(installRefusal({ version: '2.0.0', rollbackFrom: [] }, '1.0.0')).toBeNull();
    expect(installRefusal({ version: '1.0.0', rollbackFrom: [] }, '1.0.0')).toBe('same_version');
    expect(installRefusal({ version: '1.0.0', rollbackFrom: [] }, '2.0.0')).toBe('older_than_running');
    expect(installRefusal({ version: '1.0.0', rollbackFrom: ['2.0.0'] }, '2.0.0')).toBeNull();
    // A rollback release replayed at an agent past the versions it names is still refused.
    expect(installRefusal({ version: '1.0.0', rollbackFrom: ['2.0.0'] }, '3.0.0')).toBe('older_than_running');
  });
});

describe('cli.ts release', () => {
  let dir: string;
  const out: string[] = [];
  const io = (stdin = ''): CliIo => ({ log: (l) => out.push(l), error: (l) => out.push(l), stdin: () => Promise.resolve(Buffer.from(stdin)), env: {} });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'release-cli-'));
    mkdirSync(join(dir, 'build', 'public'), { recursive: true });
    writeFileSync(join(dir, 'build', 'main.js'), 'export {};\n');
    writeFileSync(join(dir, 'build', 'main.js.map'), '{}');
    writeFileSync(join(dir, 'build', 'launcher.js'), 'export {};\n');
    writeFileSync(join(dir, 'build', 'public', 'index.html'), '<html></html>');
    writeFileSync(join(dir, 'build', 'build.json'), JSON.stringify({ protocol: 1, store: { schema: 3, compatibleFrom: 1 }, node: '>=20.19' }));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a key only its owner reads, signs with it from the file or stdin, and verifies', async () => {
    const key = join(dir, 'key.pem');
    expect(await runReleaseCli(['keygen', '--out', key], io())).toBe(0);
    expect(statSync(key).mode & 0o777).toBe(0o600);
    const pub = /public key:\s+(\S+)/.exec(out.join('\n'))![1]!;
    // Never over an existing key.
    expect(await runReleaseCli(['keygen', '--out', key], io())).toBe(1);

    const file = join(dir, 'a.release');
    expect(await runReleaseCli(['sign', '--dir', join(dir, 'build'), '--version', '1.4.0', '--key-file', key, '--out', file], io())).toBe(0);
    const head = parseReleaseHead(readFileSync(file));
    // The launcher and source maps stay out; what the build says goes in.
    expect(head.manifest.files.map((f) => f.path)).toEqual(['build.json', 'main.js', 'public/index.html']);
    expect(head.manifest).toMatchObject({ minProtocol: 1, node: '>=20.19', store: { schema: 3, compatibleFrom: 1 } });
    expect(await runReleaseCli(['verify', file, '--public-key', pub], io())).toBe(0);
    expect(await runReleaseCli(['verify', file, '--public-key', publicKeyOf(other)], io())).toBe(1);

    const fromStdin = join(dir, 'b.release');
    expect(await runReleaseCli(['sign', '--dir', join(dir, 'build'), '--version', '1.3.0', '--rollback-from', '1.4.0', '--key-stdin', '--out', fromStdin], io(readFileSync(key, 'utf8')))).toBe(0);
    expect(parseReleaseHead(readFileSync(fromStdin)).manifest.rollbackFrom).toEqual(['1.4.0']);
    expect(await runReleaseCli(['inspect', fromStdin], io())).toBe(0);
  });

  it('refuses a key on the command line, a key file others can read, and a missing key', async () => {
    const key = join(dir, 'open.pem');
    writeFileSync(key, privateKey.export({ format: 'pem', type: 'pkcs8' }));
    chmodSync(key, 0o644);
    out.length = 0;
    const sign = (...args: string[]) => runReleaseCli(['sign', '--dir', join(dir, 'build'), '--version', '1.0.0', '--out', join(dir, 'x.release'), ...args], io());
    expect(await sign('--key', 'MC4CAQAwBQYDK2VwBCIEIA')).toBe(2);
    expect(await sign('--private-key=abc')).toBe(2);
    expect(await sign('--key-file', key)).toBe(2);
    expect(await sign()).toBe(2);
    expect(out.join('\n')).toMatch(/never taken as an argument/);
    expect(out.join('\n')).toMatch(/can be read by others \(mode 644\)/);
    chmodSync(key, 0o600);
    expect(await sign('--key-file', key, '--version', 'one')).toBe(2);
    expect(await runReleaseCli(['upload', join(dir, 'x.release')], io())).toBe(2);
  });
});
