/**
 * GET /operator/reports/lockers (JSON and CSV) and GET /operator/trends over orders driven through
 * the marketplace API, the operator API and the locker's facts, and link changes stored as the
 * locker link stores them, on a manual clock: every figure is asserted exactly.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { PartDeps } from '../../cloud/src/cloud-part.js';
import { transaction } from '../../cloud/src/db/transaction.js';
import { presenceLostWithBroker, savePresence } from '../../cloud/src/repositories/locker-stream.js';
import { retentionSettingsSchema } from '../../cloud/src/retention/settings.js';
import { RetentionSweep } from '../../cloud/src/retention/sweep.js';
import { Scheduler } from '../../cloud/src/scheduler.js';
import { ManualSchedulerTimers } from '../cloud/helpers/manual-timers.js';
import { testEngines } from '../helpers/cloud-db.js';
import { KEYS, orderBody, useNotifyCloud } from '../notify/helpers/notify-cloud.js';

const V4 = '/api/v4/auth/delivery';
const HOUR = 3_600_000;
const T0 = Date.parse('2030-03-04T09:00:00Z'); // Monday, 12:00 in Moscow
const VIEWER_KEY = 'reports-viewer-key';
/** A locker name a spreadsheet would take for a formula, with a comma and quotes in it. */
const HOSTILE_NAME = '=SUM(1,2) "two"';

const r4 = (part: number, whole: number): number => Math.round((part / whole) * 10_000) / 10_000;

/** RFC 4180, as a spreadsheet reads it back. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}

describe.each(testEngines())('operator reports (%s)', (engine) => {
  const h = useNotifyCloud(engine, {
    now: '2030-03-04T09:00:00Z',
    editFleet: (f) => {
      f.operators!.push({ name: 'watcher', role: 'viewer', apiKeySha256: [createHash('sha256').update(VIEWER_KEY).digest('hex')] });
      f.lockers[1]!.name = HOSTILE_NAME;
      f.lockers.push({ ...f.lockers[1]!, id: 9, name: 'Sandbox Locker', sandbox: true, location: { ...f.lockers[1]!.location, id: 9 }, cells: [{ id: 1, width: 400, height: 200, board: 0, lock: 1 }] });
    },
  });

  const at = (hours: number) => h.nc.clock.set(new Date(T0 + hours * HOUR).toISOString());

  async function presence(lockerId: number, conn: number, online: boolean) {
    await transaction(h.nc.db, (tx) => savePresence(tx, lockerId, conn, online, h.nc.clock.now()));
  }

  async function loaded(externalId: string): Promise<{ id: string; cell: number }> {
    const res = await h.nc.call('PUT', `${V4}/smartorder/create`, { key: KEYS.shopA, body: orderBody(externalId) });
    expect(res.status).toBe(200);
    const id = await h.nc.orderId(externalId);
    const cell = res.body.reserved[0].cellId as number;
    await h.nc.fact(1, { type: 'parcel.loaded', orderId: id, barcode: `${externalId}-P1`, cellId: cell, grantId: 'g' });
    return { id, cell };
  }

  async function get(path: string, headers: Record<string, string> = {}) {
    const res = await fetch(`${h.nc.cloud.url}${path}`, { headers: { 'X-Operator-Api-Key': VIEWER_KEY, ...headers } });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined };
  }

  /**
   * Locker 1 online throughout, locker 2 online 3 hours then offline until hour 40, the sandbox
   * locker online throughout. Six orders on locker 1: A and B picked up after 2 and 4 hours,
   * C returned early by an operator and collected, D's position cancelled after the load, E's
   * storage expired, F extended and picked up after its first storage period.
   */
  async function story(): Promise<void> {
    await presence(1, 1, true);
    await presence(2, 1, true);
    await presence(9, 1, true);
    at(1);
    const a = await loaded('A');
    await loaded('B');
    const c = await loaded('C');
    const d = await loaded('D');
    at(3);
    await h.nc.fact(1, { type: 'parcel.received', orderId: a.id, barcode: 'A-P1', cellId: a.cell });
    await presence(2, 1, false);
    at(5);
    const b = await h.nc.orderId('B');
    const bCell = (await h.nc.db.db.selectFrom('parcels').select('cell_id').where('order_id', '=', b).executeTakeFirstOrThrow()).cell_id!;
    await h.nc.fact(1, { type: 'parcel.received', orderId: b, barcode: 'B-P1', cellId: bCell });
    const e = await loaded('E');
    const f = await loaded('F');
    expect((await h.nc.call('POST', `${V4}/order/extension`, { key: KEYS.shopA, body: { extId: 'F' } })).status).toBe(200);
    at(6);
    const ret = await h.nc.call('POST', `/operator/orders/${c.id}/return`, { operatorKey: KEYS.operator, body: { reason: 'refused by the customer' } });
    expect(ret.body).toMatchObject({ state: 6, rule: 'OR1' });
    expect((await h.nc.call('PUT', `${V4}/order/place/cancel`, { key: KEYS.shopA, body: { extId: 'D', barcode: 'D-P1' } })).status).toBe(200);
    at(7);
    await h.nc.fact(1, { type: 'parcel.returned', orderId: c.id, barcode: 'C-P1', cellId: c.cell, grantId: 'g2' });
    at(40);
    await presence(2, 2, true);
    // E's storage (72 hours from hour 5, a Thursday that works) ended at hour 77.
    at(78);
    expect((await h.nc.storageClock.tick()).expired).toBe(1);
    at(80);
    await h.nc.fact(1, { type: 'parcel.received', orderId: f.id, barcode: 'F-P1', cellId: f.cell });
    expect([d.id, e.id].length).toBe(2);
  }

  it('gives each locker its uptime and order figures, the network without the sandbox, JSON and CSV', async () => {
    await story();
    const res = await get(`/operator/reports/lockers?from=2030-03-04T09:00:00Z&to=2030-03-08T09:00:00Z`);
    expect(res.status).toBe(200);
    const { lockers, network, sandbox } = res.body;
    expect(lockers.map((l: { lockerId: number }) => l.lockerId)).toEqual([1, 2, 3, 4, 9]);
    const observed = 80 * 3600;
    expect(lockers[0]).toStrictEqual({
      lockerId: 1,
      name: 'Locker One',
      sandbox: false,
      active: true,
      uptime: 1,
      onlineSeconds: observed,
      observedSeconds: observed,
      deliveries: 6,
      pickUps: 3,
      returns: 1,
      failed: 3,
      failedByCause: { storageExpired: 1, cancelled: 1, operatorReturn: 1, other: 0 },
      failedRate: 0.5,
      dwellMedianSeconds: 4 * 3600,
      dwellP90Seconds: 75 * 3600,
      pickedUpInTime: 2,
      sla: r4(2, 6),
    });
    expect(lockers[1]).toMatchObject({ lockerId: 2, name: HOSTILE_NAME, uptime: r4(43, 80), onlineSeconds: 43 * 3600, deliveries: 0, failedRate: null, sla: null, dwellMedianSeconds: null });
    expect(lockers[2]).toMatchObject({ lockerId: 3, uptime: 0, onlineSeconds: 0 });
    expect(lockers[4]).toMatchObject({ lockerId: 9, sandbox: true, uptime: 1 });
    expect(network).toMatchObject({ lockers: 4, onlineSeconds: 123 * 3600, observedSeconds: 4 * observed, uptime: r4(123, 320), deliveries: 6, pickUps: 3, failed: 3, sla: r4(2, 6) });
    expect(sandbox).toMatchObject({ lockers: 1, onlineSeconds: observed, uptime: 1, deliveries: 0 });

    // Offline before the period began counts offline from its start.
    const mid = await get(`/operator/reports/lockers?from=2030-03-05T21:00:00Z&to=2030-03-06T05:00:00Z`);
    expect(mid.body.lockers[1]).toMatchObject({ lockerId: 2, uptime: 0.5, onlineSeconds: 4 * 3600, observedSeconds: 8 * 3600 });
    const before = await get(`/operator/reports/lockers?from=2030-03-03&to=2030-03-04`);
    expect(before.body).toMatchObject({ from: '2030-03-02T21:00:00.000Z', to: '2030-03-03T21:00:00.000Z', network: { uptime: 0, deliveries: 0, failedRate: null, dwellP90Seconds: null } });

    const csv = await get(`/operator/reports/lockers?from=2030-03-04&to=2030-03-08&format=csv`, { 'Accept-Language': 'en' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="lockers-report_2030-03-04_2030-03-07.csv"');
    const bytes = Buffer.from(await (await fetch(`${h.nc.cloud.url}/operator/reports/lockers?from=2030-03-04&to=2030-03-08`, { headers: { 'X-Operator-Api-Key': VIEWER_KEY, Accept: 'text/csv' } })).arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(csv.text.startsWith('\uFEFF')).toBe(false); // fetch's text() drops the BOM
    const rows = parseCsv(csv.text);
    expect(rows[0]).toEqual(['Locker', 'Name', 'Sandbox', 'Uptime, %', 'Deliveries', 'Pick-ups', 'Returns', 'Failed', 'Failed rate, %', 'Dwell median, h', 'Dwell p90, h', 'SLA, %']);
    expect(rows).toHaveLength(1 + 5 + 2);
    expect(csv.text).toContain(`"'=SUM(1,2) ""two"""`);
    // 2030-03-04 Moscow began at 21:00 UTC the day before: locker 2's 3 hours online began then too.
    const hours = 92; // 2030-03-03T21:00Z .. 2030-03-07T17:00Z (now)
    const pct = (part: number, whole: number) => String(Math.round(r4(part, whole) * 10_000) / 100);
    expect(rows[1]).toEqual(['1', 'Locker One', 'no', pct(80, hours), '6', '3', '1', '3', '50', '4', '75', pct(2, 6)]);
    expect(rows[2]!.slice(0, 4)).toEqual(['2', `'${HOSTILE_NAME}`, 'no', pct(43, hours)]);
    expect(rows[6]!.slice(0, 3)).toEqual(['', 'Network', 'no']);
    expect(rows[7]!.slice(0, 5)).toEqual(['', 'Sandbox', 'yes', pct(80, hours), '0']);
    const ru = parseCsv((await get(`/operator/reports/lockers?from=2030-03-04&to=2030-03-08&format=csv`)).text);
    expect(ru[0]![0]).toBe('Постамат');
    expect(ru[6]![1]).toBe('Сеть');
  });

  it('draws the last day hour by hour and the last week day by day, for the network and one locker', async () => {
    await story();
    const week = await get('/operator/trends?span=week');
    expect(week.status).toBe(200);
    expect(week.body).toMatchObject({ span: 'week', timezone: 'Europe/Moscow', lockerId: null });
    const days = week.body.buckets as Record<string, unknown>[];
    expect(days.map((b) => b.from)).toEqual(['2030-02-28T21:00:00.000Z', '2030-03-01T21:00:00.000Z', '2030-03-02T21:00:00.000Z', '2030-03-03T21:00:00.000Z', '2030-03-04T21:00:00.000Z', '2030-03-05T21:00:00.000Z', '2030-03-06T21:00:00.000Z']);
    const column = (buckets: Record<string, unknown>[], k: string) => buckets.map((b) => b[k]);
    expect(column(days, 'occupancy')).toEqual([0, 0, 0, 3, 3, 3, 2]);
    expect(column(days, 'loads')).toEqual([0, 0, 0, 6, 0, 0, 0]);
    expect(column(days, 'pickUps')).toEqual([0, 0, 0, 2, 0, 0, 1]);
    expect(column(days, 'returns')).toEqual([0, 0, 0, 1, 0, 0, 0]);
    expect(column(days, 'failed')).toEqual([0, 0, 0, 2, 0, 0, 1]);

    const day = await get('/operator/trends?span=day&lockerId=1');
    const hours = day.body.buckets as Record<string, unknown>[];
    expect(hours).toHaveLength(24);
    expect(hours[0]!.from).toBe('2030-03-06T18:00:00.000Z');
    expect(hours[23]!.to).toBe('2030-03-07T18:00:00.000Z');
    expect(column(hours, 'occupancy')).toEqual([...Array<number>(23).fill(3), 2]);
    expect(column(hours, 'failed')).toEqual(Array.from({ length: 24 }, (_, i) => (i === 21 ? 1 : 0)));
    expect(column(hours, 'pickUps')).toEqual(Array.from({ length: 24 }, (_, i) => (i === 23 ? 1 : 0)));

    const other = await get('/operator/trends?span=week&lockerId=2');
    expect(other.body.timezone).toBe('Asia/Yekaterinburg');
    expect((other.body.buckets as Record<string, unknown>[]).every((b) => b.occupancy === 0 && b.loads === 0)).toBe(true);
  });

  it('refuses a bad period or locker in the envelope, in Russian or English', async () => {
    const backwards = await get('/operator/reports/lockers?from=2030-03-05&to=2030-03-04');
    expect(backwards).toMatchObject({ status: 400, body: { resultCode: 3, message: 'Неверный формат запроса: `from` должен быть раньше `to`' } });
    const long = await get('/operator/reports/lockers?from=2029-01-01&to=2030-03-04', { 'Accept-Language': 'en' });
    expect(long).toMatchObject({ status: 400, body: { resultCode: 3, message: 'Invalid request: the period is longer than 366 days' } });
    expect((await get('/operator/reports/lockers?from=yesterday&to=2030-03-04')).body.resultCode).toBe(3);
    expect((await get(`/operator/reports/lockers?from=2030-03-04&to=${'9'.repeat(100)}`)).status).toBe(400);
    expect((await get('/operator/trends?span=month')).status).toBe(400);
    expect((await get('/operator/trends?lockerId=777', { 'Accept-Language': 'en' })).body).toMatchObject({ resultCode: 3, message: 'Invalid request: locker 777 not found' });
    const anonymous = await fetch(`${h.nc.cloud.url}/operator/trends`);
    expect(anonymous.status).toBe(401);
  });

  it('keeps a link change per flip, the broker restart included, and the sweep keeps what uptime needs', async () => {
    await presence(1, 1, true);
    at(24);
    await presence(1, 1, false);
    await presence(1, 1, false); // the same state again: no change
    at(48);
    await presence(1, 2, true);
    at(72);
    await transaction(h.nc.db, (tx) => presenceLostWithBroker(tx, h.nc.clock.now()));
    at(73);
    await presence(1, 3, true);
    at(240);
    const rows = () => h.nc.db.db.selectFrom('locker_link_history').select(['at', 'online']).where('locker_id', '=', 1).orderBy('id').execute();
    const hours = (list: { at: number; online: number }[]) => list.map((r) => [(Number(r.at) - T0) / HOUR, r.online]);
    expect(hours(await rows())).toEqual([[0, 1], [24, 0], [48, 1], [72, 0], [73, 1]]);

    const period = '/operator/reports/lockers?from=2030-03-05T21:00:00Z&to=2030-03-08T09:00:00Z';
    const before = (await get(period)).body.lockers[0];
    expect(before).toMatchObject({ onlineSeconds: 47 * 3600, observedSeconds: 60 * 3600 });

    const logger = pino({ level: 'silent' });
    const deps = { cdb: h.nc.db, clock: h.nc.clock, logger, scheduler: new Scheduler({ logger, timers: new ManualSchedulerTimers() }) } as unknown as PartDeps;
    const report = await new RetentionSweep(deps, retentionSettingsSchema.parse({ linkHistoryDays: 8 })).sweep();
    expect(report.linkHistory).toBe(1);
    // The change at hour 24 stays: it says the locker was offline when the kept history begins.
    expect(hours(await rows())).toEqual([[24, 0], [48, 1], [72, 0], [73, 1]]);
    expect((await get(period)).body.lockers[0]).toStrictEqual(before);
  });
});
