/** GET /metrics is open by default; with METRICS_REQUIRE_KEY=true it needs an operator key, in its header or as a bearer token. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { loadCloudSettings } from '../../cloud/src/settings.js';

const OPERATOR_KEY = 'demo-operator-key';

describe('access to /metrics', () => {
  const dir = mkdtempSync(join(tmpdir(), 'metrics-access-'));
  let open: RunningCloud;
  let guarded: RunningCloud;
  const start = (name: string, requireKey: string): Promise<RunningCloud> =>
    startCloud(
      loadCloudSettings(
        { METRICS_REQUIRE_KEY: requireKey },
        { config: { port: 0, sqlitePath: join(dir, `${name}.sqlite`), fleetFile: 'deploy/fleet.example.json', logLevel: 'silent' }, mqtt: { enabled: false } },
      ),
    );

  beforeAll(async () => {
    open = await start('open', 'false');
    guarded = await start('guarded', 'true');
  });
  afterAll(async () => {
    await open?.stop();
    await guarded?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is open by default', async () => {
    const res = await fetch(`${open.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await res.text()).toMatch(/^cloud_lockers 4$/m); // the example fleet: 101, 102, 103 and the sandbox's 901
  });

  it('needs an operator key when METRICS_REQUIRE_KEY=true, in X-Operator-Api-Key or as a bearer token', async () => {
    const none = await fetch(`${guarded.url}/metrics`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ resultCode: 1 });
    expect((await fetch(`${guarded.url}/metrics`, { headers: { 'X-Operator-Api-Key': 'wrong' } })).status).toBe(401);
    expect((await fetch(`${guarded.url}/metrics`, { headers: { 'X-Operator-Api-Key': OPERATOR_KEY } })).status).toBe(200);
    expect((await fetch(`${guarded.url}/metrics`, { headers: { Authorization: `Bearer ${OPERATOR_KEY}` } })).status).toBe(200);
    // The probes stay open.
    expect((await fetch(`${guarded.url}/health/ready`)).status).toBe(200);
  });
});
