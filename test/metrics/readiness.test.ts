/**
 * GET /health/ready follows its dependencies: 503 naming the broker while the locker link's
 * broker is unreachable, 503 naming the database while PostgreSQL is unreachable, 200 again after
 * each recovers; /health keeps its answer. The outages are TCP relays the test cuts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import { loadCloudSettings } from '../../cloud/src/settings.js';
import { eventually } from '../helpers/eventually.js';
import { requires } from '../helpers/requirements.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

interface Readiness {
  status: string;
  checks: { database: { status: string; latencyMs: number }; broker: { status: string }; fleet: { status: string; source: string } };
}

async function ready(cloud: RunningCloud): Promise<{ code: number; body: Readiness }> {
  const res = await fetch(`${cloud.url}/health/ready`);
  return { code: res.status, body: (await res.json()) as Readiness };
}

function until(cloud: RunningCloud, code: number, what: string): Promise<Readiness> {
  return eventually(async () => {
    const r = await ready(cloud);
    return r.code === code ? r.body : null;
  }, what);
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

describe.runIf(requires('mqtt-url'))('readiness with the broker', () => {
  it('is 503 naming the broker while it is unreachable, 200 after', async () => {
    const proxy = new TcpProxy(process.env.MQTT_URL!);
    await proxy.start();
    cleanup.push(() => proxy.stop());
    const dir = mkdtempSync(join(tmpdir(), 'ready-'));
    cleanup.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    const cloud = await startCloud(
      loadCloudSettings({}, { config: { port: 0, sqlitePath: join(dir, 'cloud.sqlite'), logLevel: 'silent' }, mqtt: { url: proxy.url, username: `ready-${randomBytes(3).toString('hex')}` } }),
    );
    cleanup.push(() => cloud.stop());

    const up = await until(cloud, 200, 'ready');
    expect(up).toMatchObject({ status: 'ready', checks: { database: { status: 'up' }, broker: { status: 'up' }, fleet: { status: 'up', source: 'database' } } });

    proxy.block();
    proxy.cut();
    const down = await until(cloud, 503, 'not ready without the broker');
    expect(down).toMatchObject({ status: 'not_ready', checks: { database: { status: 'up' }, broker: { status: 'down' } } });
    // Liveness does not depend on the broker.
    expect((await fetch(`${cloud.url}/health`)).status).toBe(200);

    proxy.unblock();
    await until(cloud, 200, 'ready again after the broker is back');
  });
});

describe.runIf(requires('postgres'))('readiness with the database', () => {
  it('is 503 naming the database while it is unreachable, 200 after', async () => {
    const target = new URL(process.env.DATABASE_URL!);
    const proxy = new TcpProxy(`tcp://${target.hostname}:${target.port || 5432}`);
    await proxy.start();
    cleanup.push(() => proxy.stop());
    const viaProxy = new URL(target);
    viaProxy.port = new URL(proxy.url).port;
    viaProxy.hostname = '127.0.0.1';
    const pgSchema = `ready_${randomBytes(6).toString('hex')}`;
    cleanup.push(async () => {
      const admin = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: target.toString(), max: 1 }) }) });
      await sql`drop schema if exists ${sql.id(pgSchema)} cascade`.execute(admin);
      await admin.destroy();
    });
    const cloud = await startCloud(
      loadCloudSettings({}, { config: { port: 0, databaseUrl: viaProxy.toString(), pgSchema, dbPoolSize: 2, logLevel: 'silent' }, mqtt: { enabled: false } }),
    );
    cleanup.push(() => cloud.stop());

    expect(await until(cloud, 200, 'ready')).toMatchObject({ checks: { database: { status: 'up' }, broker: { status: 'disabled' } } });

    proxy.block();
    proxy.cut();
    const down = await until(cloud, 503, 'not ready without the database');
    expect(down).toMatchObject({ status: 'not_ready', checks: { database: { status: 'down' }, broker: { status: 'disabled' } } });
    const metrics = await (await fetch(`${cloud.url}/metrics`)).text();
    expect(metrics).toMatch(/^cloud_database_up 0$/m);

    proxy.unblock();
    await until(cloud, 200, 'ready again after the database is back');
  });
});
