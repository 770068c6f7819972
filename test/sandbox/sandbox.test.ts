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
const COURIER_KEY = 'demo-sandbox-courier-key';
const OPERATOR_KEY = 'demo-operator-key';
const SANDBOX_LOCKER = 901;
const PRODUCTION_LOCKER = 101;
const DT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+03:00$/;

let dir: string;
let receiver: TestReceiver;
let cloud: RunningCloud;

/**
 * The example fleet's production locker 101 and sandbox locker 901, shop-one and sandbox-shop, its
 * sandbox courier company and operator, the receiver pointed at the test's.
 */
function fleet(receiverUrl: string, caFile: string): FleetInput {
  const example = JSON.parse(readFileSync('deploy/fleet.example.json', 'utf8')) as FleetInput;
  const lockers = example.lockers.filter((l) => l.id === PRODUCTION_LOCKER || l.id === SANDBOX_LOCKER).map((l) => ({ ...l, cells: l.cells.map((c) => ({ ...c, segment: undefined })) }));
  const marketplaces = example.marketplaces
    .filter((m) => m.id === 'shop-one' || m.id === 'sandbox-shop')
    .map((m) => (m.sandbox ? { ...m, receiver: { url: receiverUrl, login: 'sandbox', password: 'sandbox-secret', caFile, bodyForm: 'object' as const } } : { ...m, receiver: undefined }));
  const partners = example.partners!.filter((p) => p.id === 'sandbox-courier');
  return { lockers, marketplaces, partners, operators: example.operators };
}

async function api(method: string, path: string, key: string, body?: unknown, header = 'x-service-api-key'): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${cloud.url}${path}`, {
    method,
    headers: { [header]: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
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

async function play(operation: string, body?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const path = operation.includes('/') || body === undefined ? operation : `orders/${operation}`;
  const res = await api('POST', `/api/v4/sandbox/${path}`, SANDBOX_KEY, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The cell's flags, as operators see them. */
async function flagsOf(cellId: number): Promise<string[]> {
  const res = await api('GET', `/operator/lockers/${SANDBOX_LOCKER}`, OPERATOR_KEY, undefined, 'x-operator-api-key');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.grid as { cellId: number; flags: string[] }[]).find((c) => c.cellId === cellId)!.flags;
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
      // A failed attempt waits an hour: what arrives sooner came because the sandbox made it due.
      notify: { retrySeconds: 3600 },
      sandbox: { dataDir: join(dir, 'sandbox'), firstPort: 0 },
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
      expect(created).toMatchObject({ status: 400, body: { resultCode: 3, message: expect.stringContaining('не найден') as unknown } });
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

  it('a route sheet for the sandbox locker with the example fleet\'s sandbox courier key', async () => {
    const res = await api(
      'PUT',
      '/api/v1/auth/couriers/courier-with-route',
      COURIER_KEY,
      {
        courier: { externalId: 'C-1', email: 'c1@courier.example', phone: '+79160000101' },
        route: { carNumber: 'A001AA77', date: localDate(Date.now(), 'Europe/Moscow'), externalId: 'R-1', postamatIds: [SANDBOX_LOCKER] },
      },
      'partner-api-key',
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.postamatAccessCode).toMatch(/^\d{6,8}$/);
  });

  it('a courier collects the returns: Courier picked up (4) and its order-status', async () => {
    await create('SBX-5');
    await play('courier-load', { externalId: 'SBX-5' });
    await play('storage-expiry', { externalId: 'SBX-5' });
    const collected = (await play('courier-return')) as { postamats: { postamatId: number; openedCells: number[] }[]; orders: { externalId: string }[] };
    expect(collected.postamats.map((p) => p.postamatId)).toEqual([SANDBOX_LOCKER]);
    expect(collected.orders).toContainEqual({ externalId: 'SBX-5', state: 4, parcels: [{ barcode: 'SBX-5-P1', state: 'returned', cellId: expect.any(Number) as unknown }] });
    const all = await told('SBX-5', 5);
    expect(all[4]!.body).toStrictEqual({ id: 'SBX-5', barcode: 'SBX-5-P1', event_id: '4', status: 'Courier picked up', dt: expect.stringMatching(DT) as unknown });
    expect(((await play('courier-return')) as typeof collected).orders.map((o) => o.externalId)).not.toContain('SBX-5');
  });

  it('a jammed lock is repaired and its flag cleared before the play answers: the cell serves again', async () => {
    const reserved = await create('SBX-6');
    await play('door-jam', { externalId: 'SBX-6' });
    await play('courier-load', { externalId: 'SBX-6' });
    expect(await flagsOf(reserved)).toEqual([]);
    // The repaired cell opens for a customer: a jam on a held cell fails the pick-up once, then not again.
    await play('door-jam', { externalId: 'SBX-6' });
    const loaded = (await play('customer-pickup', { externalId: 'SBX-6' })) as { failedCells: number[]; state: number };
    expect(loaded).toMatchObject({ state: 3, failedCells: [expect.any(Number)] });
    expect(await flagsOf(loaded.failedCells[0]!)).toEqual([]);
    expect(await play('customer-pickup', { externalId: 'SBX-6' })).toMatchObject({ state: 2, failedCells: [] });
  });

  it('the receiver down: nothing arrives; back, and everything held arrives at once, in order', async () => {
    const held = await api('PUT', '/api/v4/sandbox/receiver/outage', SANDBOX_KEY, { seconds: 3600 });
    expect(held.status).toBe(200);
    await create('SBX-7');
    await play('courier-load', { externalId: 'SBX-7' });
    expect(receiver.calls.filter((c) => (c.body as { id?: string }).id === 'SBX-7')).toHaveLength(0);
    expect(await api('DELETE', '/api/v4/sandbox/receiver/outage', SANDBOX_KEY)).toMatchObject({ status: 200, body: { heldUntil: null } });
    const arrived = await told('SBX-7', 3);
    expect(arrived.map((c) => c.path)).toEqual(['/order-status', '/user-access-code', '/expiration-date-changes']);
    arrived.forEach(checkHeaders);
  });

  it('deliver now: what waits for its next retry arrives, and the answer says nothing is left', async () => {
    const held = await api('PUT', '/api/v4/sandbox/receiver/outage', SANDBOX_KEY, { seconds: 1 });
    await create('SBX-8');
    await play('courier-load', { externalId: 'SBX-8' });
    await eventually(() => Date.now() > Date.parse(held.body.heldUntil as string), 'the hold to end');
    expect(receiver.calls.filter((c) => (c.body as { id?: string }).id === 'SBX-8')).toHaveLength(0);
    expect(await play('notifications/deliver')).toEqual({ undelivered: 0 });
    expect(receiver.delivered.filter((c) => (c.body as { id?: string }).id === 'SBX-8')).toHaveLength(3);
  });

  it('reset: open positions cancelled, returns collected, jams repaired; production untouched', async () => {
    const productionBefore = (await api('GET', '/api/v4/auth/postamat/available', PRODUCTION_KEY)).body;
    await create('SBX-9');
    await create('SBX-10');
    await play('courier-load', { externalId: 'SBX-10' });
    const jammed = await create('SBX-11');
    await play('door-jam', { externalId: 'SBX-11' });
    await api('PUT', '/api/v4/sandbox/receiver/outage', SANDBOX_KEY, { seconds: 3600 });
    const reset = await play('reset');
    expect(reset.repairedCells).toContainEqual({ postamatId: SANDBOX_LOCKER, cellId: jammed });
    const returned = (reset.returns as { orders: { externalId: string; state: number }[] }).orders;
    // Every order of this run with something in the locker was collected.
    expect(returned.map((o) => o.externalId)).toEqual(expect.arrayContaining(['SBX-10', 'SBX-3']));
    expect(returned.every((o) => o.state === 4)).toBe(true);
    expect(await play('courier-return')).toEqual({ postamats: [], orders: [] });
    for (const externalId of ['SBX-9', 'SBX-11']) {
      const res = await api('GET', `/operator/orders?query=${externalId}`, OPERATOR_KEY, undefined, 'x-operator-api-key');
      expect((res.body.items as { externalId: string; state: number }[]).find((o) => o.externalId === externalId), externalId).toMatchObject({ state: 5 });
    }
    expect(await flagsOf(jammed)).toEqual([]);
    expect((await api('GET', '/api/v4/auth/postamat/available', PRODUCTION_KEY)).body).toEqual(productionBefore);
    // The outage ended with the reset: SBX-10's order-status 4 arrives.
    await eventually(() => receiver.delivered.some((c) => (c.body as { id?: string; event_id?: string }).id === 'SBX-10' && (c.body as { event_id?: string }).event_id === '4'), 'SBX-10 event 4');
  });
});
