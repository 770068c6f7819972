/**
 * What the update tests share: the agent built once per source state (`npm run build:agent`'s
 * script into dist/update-tests/<digest of the sources>, reused by every update test of a run),
 * releases signed from it with the operator's command line (v1, v2 differ only by the version
 * they say; a broken one dies at start), a locker controller installed in a folder of its own as
 * deploy/systemd describes (the factory install, the launcher, the releases directory, the
 * native modules), a cloud with the embedded broker that trusts the test's key, and one simulator
 * per locker.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import pino from 'pino';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { hashMqttPassword } from '../../cloud/src/broker/mqtt-password.js';
import { runReleaseCli } from '../../cloud/src/releases/cli.js';
import { loadCloudSettings } from '../../cloud/src/settings.js';
import { parseReleaseHead, sha256 } from '../../shared/src/release.js';
import { startSimulator, type SimulatorHandle } from '../../sim/src/index.js';
import { stageRelease } from '../../agent/src/updates/verify.js';
import { KEYS } from '../cloud/helpers/fleet-fixtures.js';
import { eventually } from '../helpers/eventually.js';
import { UnitSupervisor } from '../helpers/unit-supervisor.js';

export const ROOT = join(import.meta.dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers loosely
export type Json = any;
export const OPERATOR_KEY = KEYS.operator;
export const VIEWER_KEY = 'viewer-key-of-the-update-tests-000000000';

function sourceDigest(): string {
  const h = createHash('sha256');
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        h.update(relative(ROOT, p));
        h.update(readFileSync(p));
      }
    }
  };
  for (const d of ['agent/src', 'shared/src', 'packages/hw-protocol/src']) walk(join(ROOT, d));
  h.update(readFileSync(join(ROOT, 'scripts/build-agent.ts')));
  h.update(readFileSync(join(ROOT, 'package.json')));
  return h.digest('hex').slice(0, 16);
}

/** The built agent for the sources as they are: built once, whichever update test asks first. */
export async function builtAgent(): Promise<string> {
  const base = join(ROOT, 'dist', 'update-tests');
  const out = join(base, sourceDigest());
  const done = join(out, 'build.json');
  if (existsSync(done)) return out;
  mkdirSync(base, { recursive: true });
  const lock = `${out}.lock`;
  await eventually(
    () => {
      try {
        mkdirSync(lock);
        return true;
      } catch {
        // Another test file builds it; a lock older than ten minutes is a crashed one's.
        if (Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 600_000) rmSync(lock, { recursive: true, force: true });
        return existsSync(done);
      }
    },
    'the agent build',
    300_000,
    200,
  );
  if (existsSync(done) && !existsSync(lock)) return out;
  try {
    if (!existsSync(done)) {
      for (const old of readdirSync(base)) if (!old.endsWith('.lock') && old !== out.slice(base.length + 1)) rmSync(join(base, old), { recursive: true, force: true });
      const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-agent.ts', '--outdir', out], { cwd: ROOT, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`the agent build failed: ${r.stderr}`);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return out;
}

const silentIo = (log: string[]) => ({
  log: (l: string) => log.push(l),
  error: (l: string) => log.push(l),
  stdin: () => Promise.resolve(Buffer.alloc(0)),
  env: {},
});

export interface Signer {
  keyFile: string;
  publicKey: string;
  sign(dir: string, version: string, extra?: string[]): Promise<Buffer>;
}

/** A signing key made with `cli.ts release keygen`, and releases signed with `cli.ts release sign`. */
export async function signer(dir: string): Promise<Signer> {
  const keyFile = join(dir, 'signing-key.pem');
  const log: string[] = [];
  if ((await runReleaseCli(['keygen', '--out', keyFile], silentIo(log))) !== 0) throw new Error(log.join('\n'));
  const publicKey = /public key:\s+(\S+)/.exec(log.join('\n'))![1]!;
  return {
    keyFile,
    publicKey,
    async sign(build, version, extra = []) {
      const out = join(dir, `agent-${version}.release`);
      const lines: string[] = [];
      const code = await runReleaseCli(['sign', '--dir', build, '--version', version, '--key-file', keyFile, '--out', out, ...extra], silentIo(lines));
      if (code !== 0) throw new Error(lines.join('\n'));
      return readFileSync(out);
    },
  };
}

/** A copy of the build whose main.js dies at start: a release that never comes up. */
export function brokenBuild(build: string, dir: string): string {
  const out = join(dir, 'broken-build');
  rmSync(out, { recursive: true, force: true });
  cpSync(build, out, { recursive: true });
  const main = join(out, 'main.js');
  writeFileSync(main, `throw new Error('this release is broken on purpose');\n${readFileSync(main, 'utf8')}`);
  return out;
}

/**
 * A controller's install root as deploy/systemd expects it: the factory install (a release's
 * files, with its release.json, and the launcher) in dist/agent, the releases directory, and
 * node_modules (the native modules).
 */
export async function installController(root: string, build: string, factory: Buffer): Promise<void> {
  mkdirSync(join(root, 'dist'), { recursive: true });
  mkdirSync(join(root, 'releases'), { recursive: true });
  const file = join(root, 'factory.release');
  writeFileSync(file, factory);
  await stageRelease(file, parseReleaseHead(factory), join(root, 'dist', 'agent'));
  rmSync(file);
  cpSync(join(build, 'launcher.js'), join(root, 'dist', 'agent', 'launcher.js'));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
}

/** Cells of every locker: four on board 0. */
const CELLS = [1, 2, 3, 4].map((lock) => ({ id: lock, width: 400, height: lock * 100, board: 0, lock }));

export interface UpdateWorld {
  dir: string;
  cloud: RunningCloud;
  brokerUrl: string;
  signer: Signer;
  lockerIds: number[];
  /** Operator API (the operator key unless `viewer`). */
  api(method: string, path: string, body?: unknown, viewer?: boolean): Promise<{ status: number; body: Json }>;
  upload(artifact: Buffer): Promise<number>;
  rollout(id: number): Promise<Json>;
  waitRollout(id: number, what: string, pred: (r: Json) => boolean, timeoutMs?: number): Promise<Json>;
  /** A locker controller: installed, configured, under its unit; not started. */
  controller(lockerId: number, options?: { downloadUrl?: string; nodeArgs?: string[]; env?: Record<string, string>; maxBytesPerSecond?: number }): Promise<Controller>;
  close(): Promise<void>;
}

export interface Controller {
  lockerId: number;
  root: string;
  sim: SimulatorHandle;
  unit: UnitSupervisor;
  /** The version the running agent said it is. */
  version(): string | undefined;
  /** Until the agent runs `version` and its screen answers. */
  runs(version: string, timeoutMs?: number): Promise<void>;
}

export interface WorldOptions {
  lockers: number;
  build: string;
  factory: (s: Signer) => Promise<Buffer>;
}

export async function openUpdateWorld(opts: WorldOptions): Promise<UpdateWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'update-world-'));
  const sign = await signer(dir);
  const factory = await opts.factory(sign);
  const base = 100 + Math.floor(Math.random() * 1_000_000) * 10;
  const lockerIds = Array.from({ length: opts.lockers }, (_, i) => base + i + 1);
  const password = (id: number): string => `locker-${id}-password`;
  const fleetFile = join(dir, 'fleet.json');
  writeFileSync(
    fleetFile,
    JSON.stringify({
      lockers: lockerIds.map((id, i) => ({
        id,
        name: `Locker ${id}`,
        timezone: 'Europe/Moscow',
        depth: 500,
        location: { id, city: i % 2 === 0 ? 'Moscow' : 'Kazan', street: 'Test street', house: String(i + 1), latitude: 55.75, longitude: 37.61, fullAddress: `Test street, ${i + 1}` },
        mqttPasswordSha256: hashMqttPassword(password(id)),
        cells: CELLS,
      })),
      marketplaces: [{ id: 'shop-a', name: 'Shop A', apiKeySha256: [hashMqttPassword(KEYS.shopA)], storagePeriodHours: 72 }],
      partners: [],
      operators: [
        { name: 'ops', apiKeySha256: [hashMqttPassword(OPERATOR_KEY)] },
        { name: 'watcher', role: 'viewer', apiKeySha256: [hashMqttPassword(VIEWER_KEY)] },
      ],
    }),
  );
  const cloud = await startCloud(
    loadCloudSettings(
      {},
      {
        config: {
          port: 0,
          host: '127.0.0.1',
          fleetFile,
          sqlitePath: join(dir, 'cloud.sqlite'),
          releasePublicKeys: [sign.publicKey],
          rolloutTickSeconds: 1,
          rolloutOfferResendSeconds: 5,
          logLevel: 'silent',
        },
        mqtt: { brokerPort: 0 },
        sandbox: { firstPort: 0 },
      },
    ),
    { logger: pino({ level: process.env.UPDATE_TEST_LOG ? 'info' : 'silent' }) },
  );
  const brokerUrl = cloud.brokerUrl!;
  const controllers: Controller[] = [];
  const sims: SimulatorHandle[] = [];

  const api = async (method: string, path: string, body?: unknown, viewer = false): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${cloud.url}${path}`, {
      method,
      headers: { 'x-operator-api-key': viewer ? VIEWER_KEY : OPERATOR_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const rollout = async (id: number): Promise<Json> => (await api('GET', `/operator/rollouts/${id}`)).body;

  return {
    dir,
    cloud,
    brokerUrl,
    signer: sign,
    lockerIds,
    api,
    async upload(artifact) {
      const r = await api('POST', '/operator/releases', { artifact: artifact.toString('base64'), reason: 'test release' });
      if (r.status !== 201 && r.status !== 200) throw new Error(`upload refused: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.id as number;
    },
    rollout,
    waitRollout: (id, what, pred, timeoutMs = 120_000) => eventually(async () => {
      const r = await rollout(id);
      return pred(r) ? r : undefined;
    }, what, timeoutMs, 200),
    async controller(lockerId, options = {}) {
      const root = join(dir, `locker-${lockerId}`);
      await installController(root, opts.build, factory);
      const sim = await startSimulator({ buses: [{ name: 'main', family: 'kerong-cu48', boards: 1 }], scanner: false });
      sims.push(sim);
      const config = join(root, 'agent.json');
      writeFileSync(
        config,
        JSON.stringify({
          lockerId: String(lockerId),
          buses: [sim.busConfig('main', 'tcp')],
          mqtt: { url: brokerUrl, password: password(lockerId), reconnectMinMs: 100, reconnectMaxMs: 1000, resendAfterMs: 2000 },
          updates: {
            dir: join(root, 'releases'),
            publicKeys: [sign.publicKey],
            url: options.downloadUrl ?? cloud.url,
            healthyForSeconds: 1,
            quietForSeconds: 0,
            startAttempts: 2,
            maxBytesPerSecond: options.maxBytesPerSecond ?? 8_388_608,
          },
          dbPath: join(root, 'state', 'agent.sqlite'),
          screen: { host: '127.0.0.1', port: 0 },
          doors: { pollMs: 100 },
        }),
      );
      const unit = new UnitSupervisor({
        root,
        env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', AGENT_CONFIG: config, LOG_LEVEL: 'info', ...options.env },
        restartMs: 200,
        ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}),
      });
      const c: Controller = {
        lockerId,
        root,
        sim,
        unit,
        version: () => unit.current?.version,
        async runs(version, timeoutMs = 60_000) {
          await eventually(async () => {
            const life = unit.current;
            if (!life || life.exit || life.version !== version || !life.screenUrl) return false;
            return (await fetch(`${life.screenUrl}/api/state`).then((r) => r.ok).catch(() => false)) || undefined;
          }, `locker ${lockerId} to run ${version}`, timeoutMs, 100);
        },
      };
      controllers.push(c);
      return c;
    },
    async close() {
      await Promise.all(controllers.map((c) => c.unit.stop()));
      await cloud.stop();
      await Promise.all(sims.map((s) => s.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { sha256 };
