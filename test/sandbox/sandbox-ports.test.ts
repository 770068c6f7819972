/**
 * The sandbox lockers' ports come from SANDBOX_FIRST_PORT: each takes its slot's consecutive
 * ports (screen, simulator, hardware links), so its URLs are the same at every start; a taken or
 * overlapping port stops the cloud's start naming the setting, and a sandbox locker beyond
 * SANDBOX_MAX_LOCKERS is not started, counted in /metrics.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import type { FleetInput } from '../../cloud/src/fleet/fleet-schema.js';
import { loadCloudSettings, type CloudSettingsInput } from '../../cloud/src/settings.js';
import { eventually } from '../helpers/eventually.js';
import { freePortBlock } from '../helpers/free-port.js';

const SANDBOX_KEY = 'demo-sandbox-shop-key';
const PER_SLOT = 8;

let dir: string;
let fleetFile: string;

/** The example fleet's sandbox locker 901 and a copy of it, 902, with the sandbox shop. */
function fleet(): FleetInput {
  const example = JSON.parse(readFileSync('deploy/fleet.example.json', 'utf8')) as FleetInput;
  const sandbox = example.lockers.find((l) => l.id === 901)!;
  const lockers = [sandbox, { ...sandbox, id: 902, name: 'Sandbox locker two' }].map((l) => ({ ...l, cells: l.cells.map((c) => ({ ...c, segment: undefined })) }));
  const marketplaces = example.marketplaces.filter((m) => m.id === 'sandbox-shop').map((m) => ({ ...m, receiver: undefined }));
  return { lockers, marketplaces, operators: example.operators };
}

function settings(dataDir: string, overrides: CloudSettingsInput = {}) {
  return loadCloudSettings(
    {},
    {
      ...overrides,
      config: { port: 0, sqlitePath: join(dataDir, 'cloud.sqlite'), fleetFile, logLevel: 'silent', ...overrides.config },
      mqtt: { brokerPort: 0, ...overrides.mqtt },
      sandbox: { dataDir: join(dataDir, 'sandbox'), ...overrides.sandbox },
    },
  );
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-ports-'));
  fleetFile = join(dir, 'fleet.json');
  writeFileSync(fleetFile, JSON.stringify(fleet()));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the sandbox lockers on SANDBOX_FIRST_PORT', () => {
  let cloud: RunningCloud;
  let first: number;

  beforeAll(async () => {
    first = await freePortBlock(PER_SLOT);
    cloud = await startCloud(settings(join(dir, 'one'), { sandbox: { firstPort: first, maxLockers: 1 } }), { logger: pino({ level: 'silent' }) });
  }, 60_000);
  afterAll(() => cloud?.stop());

  it('runs the first sandbox locker on its slot\'s ports, and refuses the one beyond SANDBOX_MAX_LOCKERS, counted', async () => {
    const list = async () => (await (await fetch(`${cloud.url}/api/v4/sandbox/lockers`, { headers: { 'x-service-api-key': SANDBOX_KEY } })).json()) as { postamats: Record<string, unknown>[] };
    await eventually(async () => (await list()).postamats.find((p) => p.postamatId === 901)?.running === true, 'sandbox locker 901 running');
    expect((await list()).postamats).toEqual([
      { postamatId: 901, name: expect.any(String) as unknown, running: true, screenUrl: `http://127.0.0.1:${first}`, simUrl: `http://127.0.0.1:${first + 1}` },
      { postamatId: 902, name: 'Sandbox locker two', running: false, screenUrl: null, simUrl: null },
    ]);
    const metrics = await (await fetch(`${cloud.url}/metrics`)).text();
    expect(metrics).toMatch(/^cloud_sandbox_lockers_refused_total\{reason="no_slot"\} 1$/m);
  }, 60_000);
});

describe('a sandbox port block the cloud cannot use stops its start, naming the setting', () => {
  let server: Server;
  let taken: number;
  beforeAll(async () => {
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    taken = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a taken port in the block', async () => {
    const start = startCloud(settings(join(dir, 'taken'), { sandbox: { firstPort: taken - 3, maxLockers: 1 } }), { logger: pino({ level: 'silent' }) });
    await expect(start).rejects.toThrow(new RegExp(`port ${taken} for the sandbox locker slot 1 is in use: set SANDBOX_FIRST_PORT to another port`));
  });

  it("the cloud's own port inside the block", () => {
    const start = startCloud(settings(join(dir, 'overlap'), { config: { port: 9005 }, sandbox: { firstPort: 9000, maxLockers: 1 } }), { logger: pino({ level: 'silent' }) });
    return expect(start).rejects.toThrow(/PORT=9005 lies in the sandbox lockers' block 9000-9007 \(SANDBOX_FIRST_PORT, SANDBOX_MAX_LOCKERS\)/);
  });

  it('a block past port 65535', () => {
    const start = startCloud(settings(join(dir, 'past'), { sandbox: { firstPort: 65_530, maxLockers: 1 } }), { logger: pino({ level: 'silent' }) });
    return expect(start).rejects.toThrow(/SANDBOX_FIRST_PORT=65530 with SANDBOX_MAX_LOCKERS=1 needs ports up to 65537/);
  });
});
