/**
 * The sandbox end to end, as an integrator sees it: a cloud from startCloud() with the standard
 * parts runs the fleet's sandbox locker (simulator plus agent as a child process, linked over the
 * embedded broker), and the test uses only the sandbox marketplace's key over HTTP and its HTTPS
 * receiver. Orders go through a courier's load, the customer's pick-up, storage running out and a
 * jammed lock; the notifications must be exactly those production sends (docs/notifications.md).
 * Isolation is checked both ways: neither kind of key sees the other's lockers.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloud, type RunningCloud } from '../../cloud/src/cloud.js';
import type { FleetInput } from '../../cloud/src/fleet/fleet-schema.js';
import { localDate } from '../../cloud/src/lockers/locker-time.js';
import { loadCloudSettings } from '../../cloud/src/settings.js';
import { eventually } from '../helpers/eventually.js';
import { makeTestPki } from '../helpers/test-ca.js';
import { startReceiver, type ReceivedCall, type TestReceiver } from '../helpers/test-receiver.js';

const SANDBOX_KEY = 'demo-sandbox-shop-key';
const PRODUCTION_KEY = 'demo-shop-one-key';
const SANDBOX_LOCKER = 901;
const PRODUCTION_LOCKER = 101;
const DT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+03:00$/;

let dir: string;
let receiver: TestReceiver;
let cloud: RunningCloud;

/** The example fleet's production locker 101 and sandbox locker 901, shop-one and sandbox-shop, the receiver pointed at the test's. */
function fleet(receiverUrl: string, caFile: string): FleetInput {
  const example = JSON.parse(readFileSync('deploy/fleet.example.json', 'utf8')) as FleetInput;
  const lockers = example.lockers.filter((l) => l.id === PRODUCTION_LOCKER || l.id === SANDBOX_LOCKER).map((l) => ({ ...l, cells: l.cells.map((c) => ({ ...c, segment: undefined })) }));
  const marketplaces = example.marketplaces
    .filter((m) => m.id === 'shop-one' || m.id === 'sandbox-shop')
    .map((m) => (m.sandbox ? { ...m, receiver: { url: receiverUrl, login: 'sandbox', password: 'sandbox-secret', caFile, bodyForm: 'object' as const } } : { ...m, receiver: undefined }));
  return { lockers, marketplaces, partners: [], operators: [] };
}

async function api(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${cloud.url}${path}`, {
    method,
    headers: { 'x-service-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function order(externalId: string, postamatId = SANDBOX_LOCKER): Record<string, unknown> {
  return {
    externalId,
    postamatId,
    dateDelivery: localDate(Date.now(), 'Europe/Moscow'),
    parcels: [{ barcode: `${externalId}-P1`, dimension: { length: 300, width: 200, height: 80 } }],
    clientInvoice: { cart: { items: [], prePaymentSum: 0 } },
    notification: { emails: [], phones: ['+79160000001'] },
  };
}

async function create(externalId: string): Promise<number> {
  const res = await api('PUT', '/api/v4/auth/delivery/smartorder/create', SANDBOX_KEY, order(externalId));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.reserved as { cellId: number }[])[0]!.cellId;
}

async function play(operation: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await api('POST', `/api/v4/sandbox/orders/${operation}`, SANDBOX_KEY, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The delivered notifications of one order, once there are `n`, in arrival order. */
async function told(externalId: string, n: number): Promise<ReceivedCall[]> {
  const mine = () => receiver.delivered.filter((c) => (c.body as { id?: string }).id === externalId);
  await eventually(() => mine().length >= n, `${n} notifications of ${externalId}`);
  expect(mine()).toHaveLength(n);
  return mine();
}

function checkHeaders(call: ReceivedCall): void {
  expect(call.headers['content-type']).toBe('application/json');
  expect(call.headers.authorization).toBe(`Basic ${Buffer.from('sandbox:sandbox-secret').toString('base64')}`);
  expect(call.headers['x-notification-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(call.headers['x-signature']).toBeUndefined();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-'));
  const pki = await makeTestPki();
  receiver = await startReceiver(pki, 'sandbox', 'sandbox-secret');
  const fleetFile = join(dir, 'fleet.json');
  writeFileSync(fleetFile, JSON.stringify(fleet(receiver.url, pki.caFile)));
  const settings = loadCloudSettings(
    {},
    {
      config: { port: 0, sqlitePath: join(dir, 'cloud.sqlite'), fleetFile, logLevel: 'warn' },
      mqtt: { brokerPort: 0 },
      notify: { retrySeconds: 1 },
      sandbox: { dataDir: join(dir, 'sandbox') },
    },
  );
  cloud = await startCloud(settings, { logger: pino({ level: 'warn' }) });
}, 60_000);

afterAll(async () => {
  await cloud?.stop();
  await receiver?.down();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the sandbox', () => {
  it('keeps sandbox and production lockers apart, both ways', async () => {
    const seen = async (key: string) => ((await api('GET', '/api/v4/auth/postamat/available', key)).body.postamats as { id: number }[]).map((l) => l.id);
    expect(await seen(SANDBOX_KEY)).toEqual([SANDBOX_LOCKER]);
    expect(await seen(PRODUCTION_KEY)).toEqual([PRODUCTION_LOCKER]);
    for (const [key, locker] of [
      [PRODUCTION_KEY, SANDBOX_LOCKER],
      [SANDBOX_KEY, PRODUCTION_LOCKER],
    ] as const) {
      const detail = await api('GET', `/api/v4/auth/postamat/get-by-id?postamatId=${locker}&cellsType=0`, key);
      expect(detail).toMatchObject({ status: 400, body: { resultCode: 3 } });
      const created = await api('PUT', '/api/v4/auth/delivery/smartorder/create', key, order(`ISO-${locker}`, locker));
      expect(created).toMatchObject({ status: 400, body: { resultCode: 3, message: expect.stringContaining('not found') as unknown } });
    }
    const refused = await api('POST', '/api/v4/sandbox/orders/courier-load', PRODUCTION_KEY, { externalId: 'X' });
    expect(refused).toMatchObject({ status: 404, body: { resultCode: 3 } });
    expect((await api('GET', '/api/v4/sandbox/lockers', SANDBOX_KEY)).body).toMatchObject({ postamats: [{ postamatId: SANDBOX_LOCKER, running: true }] });
  });

  it("gives a sandbox locker its MQTT password through a pipe: not in its command line nor its environment", async () => {
    await eventually(async () => ((await api('GET', '/api/v4/sandbox/lockers', SANDBOX_KEY)).body.postamats as { running: boolean }[])[0]?.running, 'the sandbox locker running');
    // What every user of the machine sees in `ps`: the children of this process (the cloud runs in it).
    const children = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes('locker-process'));
    expect(children.length).toBeGreaterThan(0);
    for (const line of children) {
      expect(line).not.toMatch(/password|brokerUrl|\{/);
      const environ = readFileSync(`/proc/${line.trim().split(/\s+/)[0]}/environ`, 'utf8');
      expect(environ).not.toMatch(/password/i);
    }
  });

  it('a courier loads, the customer takes: the notifications production sends', async () => {
    const cellId = await create('SBX-1');
    expect(await play('courier-load', { externalId: 'SBX-1' })).toMatchObject({ state: 3, parcels: [{ barcode: 'SBX-1-P1', state: 'loaded', cellId }] });
    const loaded = await told('SBX-1', 3);
    expect(loaded.map((c) => c.path)).toEqual(['/order-status', '/user-access-code', '/expiration-date-changes']);
    const [status3, code, expiry] = loaded.map((c) => c.body as Record<string, unknown>);
    expect(status3).toStrictEqual({ postamat_id: '901', cell_id: cellId, id: 'SBX-1', barcode: 'SBX-1-P1', event_id: '3', status: 'Courier loaded', dt: expect.stringMatching(DT) as unknown });
    expect(code).toStrictEqual({ id: 'SBX-1', postamat_id: '901', access_code: expect.stringMatching(/^\d{6}$/) as unknown });
    expect(expiry).toStrictEqual({ id: 'SBX-1', event_dt: expect.stringMatching(DT) as unknown, expire_dt: expect.stringMatching(DT) as unknown });

    expect(await play('customer-pickup', { externalId: 'SBX-1', accessCode: code!.access_code })).toMatchObject({ state: 2, openedCells: [cellId], failedCells: [] });
    const all = await told('SBX-1', 4);
    expect(all[3]!.body).toStrictEqual({ id: 'SBX-1', barcode: 'SBX-1-P1', event_id: '2', status: 'Client received', dt: expect.stringMatching(DT) as unknown });
    all.forEach(checkHeaders);
    expect(new Set(all.map((c) => c.headers['x-notification-id'])).size).toBe(4);
  });

  it('storage runs out: Awaiting return (7) and its order-status', async () => {
    await create('SBX-2');
    await play('courier-load', { externalId: 'SBX-2' });
    expect(await play('storage-expiry', { externalId: 'SBX-2' })).toMatchObject({ state: 7, parcels: [{ state: 'awaiting_return' }] });
    const all = await told('SBX-2', 4);
    expect(all[3]!.path).toBe('/order-status');
    expect(all[3]!.body).toStrictEqual({ id: 'SBX-2', barcode: 'SBX-2-P1', event_id: '7', status: 'Awaiting return', dt: expect.stringMatching(DT) as unknown });
    all.forEach(checkHeaders);
  });

  it('a jammed lock: the load goes to the next fitting cell, and the receiver is told that cell', async () => {
    const reserved = await create('SBX-3');
    expect(await play('door-jam', { externalId: 'SBX-3' })).toStrictEqual({ externalId: 'SBX-3', cellId: reserved });
    const loaded = await play('courier-load', { externalId: 'SBX-3' });
    const cellId = (loaded.parcels as { cellId: number }[])[0]!.cellId;
    expect(cellId).not.toBe(reserved);
    const [status3] = await told('SBX-3', 3);
    expect(status3!.body).toMatchObject({ postamat_id: '901', cell_id: cellId, event_id: '3' });
  });

  it('the receiver down for a while: deliveries are retried, then arrive', async () => {
    const held = await api('PUT', '/api/v4/sandbox/receiver/outage', SANDBOX_KEY, { seconds: 2 });
    expect(held.status).toBe(200);
    const until = Date.parse(held.body.heldUntil as string);
    await create('SBX-4');
    await play('courier-load', { externalId: 'SBX-4' });
    const [first] = await told('SBX-4', 3);
    expect(receiver.calls.filter((c) => (c.body as { id?: string }).id === 'SBX-4')).toHaveLength(3);
    expect(Date.now()).toBeGreaterThanOrEqual(until);
    checkHeaders(first!);
  });
});
