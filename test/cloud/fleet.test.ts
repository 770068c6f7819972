import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fleetJsonSchema, fleetSchema } from '../../cloud/src/fleet/fleet-schema.js';
import { FleetError, readFleetFile } from '../../cloud/src/fleet/provision.js';
import { KEYS, orderBody, testFleet } from './helpers/fleet-fixtures.js';
import { commandsFor, lastCseq } from './helpers/db-queries.js';
import { type TestCloud, startTestCloud } from './helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';

const sha = (key: string): string => createHash('sha256').update(key).digest('hex');
const SMART = '/api/v4/auth/delivery/smartorder/create';

describe('fleet file', () => {
  it('docs/fleet.schema.json is the current JSON Schema of the fleet file', () => {
    const committed: unknown = JSON.parse(readFileSync('docs/fleet.schema.json', 'utf8'));
    expect(committed).toEqual(fleetJsonSchema());
  });

  it('deploy/fleet.example.json is valid and its documented demo keys match', async () => {
    const fleet = await readFleetFile('deploy/fleet.example.json');
    expect(fleet.lockers.map((l) => [l.cells.length, l.sandbox])).toEqual([
      [8, false],
      [16, false],
      [24, false],
      [8, true],
    ]);
    expect(fleet.marketplaces.map((m) => [m.id, m.sandbox])).toEqual([
      ['shop-one', false],
      ['shop-two', false],
      ['sandbox-shop', true],
    ]);
    expect(fleet.marketplaces[2]!.apiKeySha256).toEqual([sha('demo-sandbox-shop-key')]);
    expect(fleet.partners.map((p) => [p.id, p.marketplaces, p.lockers])).toEqual([
      ['fast-courier', ['shop-one', 'shop-two'], [101, 102, 103]],
      ['sandbox-courier', ['sandbox-shop'], [901]],
    ]);
    expect(fleet.partners[1]!.apiKeySha256).toEqual([sha('demo-sandbox-courier-key')]);
    expect(fleet.marketplaces[0]!.apiKeySha256).toEqual([sha('demo-shop-one-key')]);
    expect(fleet.marketplaces[1]!.apiKeySha256).toEqual([sha('demo-shop-two-key')]);
    expect(fleet.partners[0]!.apiKeySha256).toEqual([sha('demo-fast-courier-key')]);
    expect(fleet.operators[0]!.apiKeySha256).toEqual([sha('demo-operator-key')]);
  });

  it('refuses inconsistent fleets, naming the problem', () => {
    const issues = (mutate: (f: ReturnType<typeof testFleet>) => void): string => {
      const fleet = testFleet();
      mutate(fleet);
      const parsed = fleetSchema.safeParse(fleet);
      expect(parsed.success).toBe(false);
      return JSON.stringify(parsed.error?.issues);
    };
    expect(issues((f) => (f.lockers[0]!.cells[1]!.id = 1))).toContain('cell id 1 appears twice');
    expect(issues((f) => (f.lockers[0]!.cells[1]!.lock = 1))).toContain('lock address main/0/1 is used by two cells');
    expect(issues((f) => ((f.lockers[0]!.sandbox = true), (f.lockers[0]!.mqttPasswordSha256 = 'a'.repeat(64))))).toContain('a sandbox locker gets its MQTT password');
    expect(issues((f) => ((f.marketplaces[0]!.sandbox = true), (f.lockers[0]!.cells[0]!.segment = [f.marketplaces[0]!.id])))).toContain('is a sandbox marketplace and cannot use this locker');
    expect(issues((f) => (f.lockers[0]!.cells[0]!.segment = ['nobody']))).toContain('unknown marketplace nobody');
    expect(issues((f) => (f.partners![0]!.lockers = [77]))).toContain('unknown locker 77');
    expect(issues((f) => (f.lockers[0]!.timezone = 'Mars/Olympus'))).toContain('IANA');
    expect(issues((f) => (f.partners![0]!.apiKeySha256 = [sha(KEYS.shopA)]))).toContain('more than one owner');
    expect(issues((f) => Object.assign(f.lockers[0]!.cells[0]!, { segmnet: ['shop-a'] }))).toContain('segmnet');
    expect(issues((f) => (f.lockers[0]!.cells[0]!.width = 0))).toContain('width');
  });
});

describe.each(testEngines())('fleet provisioning and the operator API on %s', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine);
  });
  afterAll(async () => tc.stop());
  beforeEach(async () => tc.reset());

  const reloadWith = async (mutate: (f: ReturnType<typeof testFleet>) => void) => {
    const fleet = testFleet();
    mutate(fleet);
    tc.writeFleet(fleet);
    return tc.cloud.reloadFleet();
  };

  it('sends locker.config when a layout changes and nothing when the fleet is the same', async () => {
    const first = await commandsFor(tc, 1);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ type: 'locker.config', config: { lockerId: '1', timezone: 'Europe/Moscow', depth: 500 } });
    const only = first[0]!;
    const config = only.type === 'locker.config' ? only.config : undefined;
    expect(config?.cells[4]).toEqual({ id: 5, width: 400, height: 100, bus: 'main', board: 0, lock: 5, flags: ['dirty'] });

    expect((await tc.cloud.reloadFleet()).configChanged).toEqual([]);
    const report = await reloadWith((f) => {
      f.lockers[0]!.cells[0]!.height = 120;
      f.lockers[0]!.cells.push({ id: 7, width: 400, height: 100, board: 0, lock: 7 });
    });
    expect(report.configChanged).toEqual([1]);
    const [cmd] = await commandsFor(tc, 1, 1);
    expect(cmd?.type === 'locker.config' && cmd.config.cells.map((c) => [c.id, c.height])).toEqual([[1, 120], [2, 100], [3, 200], [4, 400], [5, 100], [6, 100], [7, 100]]);
  });

  it('adds flags from the fleet but never clears one on reload', async () => {
    await reloadWith((f) => (f.lockers[0]!.cells[0]!.flags = ['blocked']));
    await reloadWith(() => undefined);
    const cell = await tc.db.db.selectFrom('cells').selectAll().where('locker_id', '=', 1).where('id', '=', 1).executeTakeFirstOrThrow();
    expect(cell.blocked).toBe(1);
  });

  it('refuses to drop a cell that holds a reservation, and drops it once empty', async () => {
    await tc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('FL-1') }); // reserves cell 1
    const dropCell1 = (f: ReturnType<typeof testFleet>) => (f.lockers[0]!.cells = f.lockers[0]!.cells.filter((c) => c.id !== 1));
    await expect(reloadWith(dropCell1)).rejects.toThrow(FleetError);
    await expect(reloadWith(dropCell1)).rejects.toThrow(/locker 1: cells 1 are missing from the fleet file but hold or are reserved/);
    expect(await tc.db.db.selectFrom('cells').select('id').where('locker_id', '=', 1).where('id', '=', 1).execute()).toHaveLength(1);
    await tc.call('PUT', '/api/v4/auth/delivery/order/place/cancel', { key: KEYS.shopA, body: { extId: 'FL-1', barcode: 'FL-1-P1' } });
    expect((await reloadWith(dropCell1)).configChanged).toEqual([1]);
    expect(await tc.db.db.selectFrom('cells').select('id').where('locker_id', '=', 1).where('id', '=', 1).execute()).toHaveLength(0);
  });

  it('deactivates what left the fleet, keeps orders, and rotates keys', async () => {
    await tc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('FL-2', { postamatId: 2 }) });
    const report = await reloadWith((f) => {
      f.lockers = f.lockers.filter((l) => l.id !== 2);
      f.partners![0]!.lockers = [1];
      f.partners![0]!.marketplaces = ['shop-a'];
      f.marketplaces = f.marketplaces.filter((m) => m.id !== 'shop-b');
      f.lockers[0]!.cells = f.lockers[0]!.cells.filter((c) => c.id !== 6);
      f.marketplaces[0]!.apiKeySha256 = [sha('rotated-key')];
    });
    expect(report.lockers.deactivated).toEqual([2]);
    expect((await tc.db.db.selectFrom('lockers').select('active').where('id', '=', 2).executeTakeFirstOrThrow()).active).toBe(0);
    expect(await tc.db.db.selectFrom('orders').select('id').where('external_id', '=', 'FL-2').execute()).toHaveLength(1);
    expect((await tc.call('GET', '/api/v4/auth/postamat/available', { key: KEYS.shopA })).status).toBe(401);
    expect((await tc.call('GET', '/api/v4/auth/postamat/available', { key: KEYS.shopB })).body.resultCode).toBe(1);
    const rotated = await tc.call('GET', '/api/v4/auth/postamat/available', { key: 'rotated-key' });
    expect(rotated.body.postamats.map((p: { id: number }) => p.id)).toEqual([1, 3]);
  });

  describe('operator API', () => {
    const flags = (cell: string, body: unknown, operatorKey: string = KEYS.operator) =>
      tc.call('PUT', `/operator/postamats/1/cells/${cell}/flags`, { operatorKey, body });

    it('sets and clears cell flags, tells the locker, and allocation follows', async () => {
      const cseq = await lastCseq(tc, 1);
      expect(await flags('1', { faulty: true, blocked: true })).toEqual({ status: 200, body: { postamatId: 1, cellId: 1, flags: ['faulty', 'blocked'] } });
      expect(await commandsFor(tc, 1, cseq)).toEqual([{ cseq: cseq + 1, type: 'cell.flags', cellId: 1, flags: ['faulty', 'blocked'] }]);
      const first = await tc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('OP-1') });
      expect(first.body.reserved[0].cellId).toBe(2);
      expect((await flags('1', { faulty: false, blocked: false })).body.flags).toEqual([]);
      expect((await flags('5', { dirty: false })).body.flags).toEqual([]);
      const second = await tc.call('PUT', SMART, { key: KEYS.shopA, body: orderBody('OP-2') });
      expect(second.body.reserved[0].cellId).toBe(1);
      // Nothing changed, nothing sent.
      const before = await lastCseq(tc, 1);
      await flags('1', { faulty: false });
      expect(await lastCseq(tc, 1)).toBe(before);
    });

    it('refuses unknown cells, bad bodies and other keys', async () => {
      expect((await flags('99', { dirty: true })).body.resultCode).toBe(3);
      expect((await flags('1', { dirty: 'yes' })).body.resultCode).toBe(3);
      expect((await flags('1', { dirty: true }, KEYS.shopA)).status).toBe(401);
      expect((await tc.call('POST', '/operator/fleet/reload', { key: KEYS.operator })).status).toBe(401);
    });

    it('reloads the fleet file, and reports a broken file without changing anything', async () => {
      const fleet = testFleet();
      fleet.lockers[0]!.name = 'Renamed';
      tc.writeFleet(fleet);
      const ok = await tc.call('POST', '/operator/fleet/reload', { operatorKey: KEYS.operator });
      expect(ok.status).toBe(200);
      expect(ok.body.lockers.updated).toEqual([1, 2, 3, 4]);
      expect((await tc.call('GET', '/api/v4/auth/postamat/get-by-id?postamatId=1', { key: KEYS.shopA })).body.name).toBe('Renamed');

      fleet.lockers[0]!.name = 'Broken file';
      fleet.lockers[0]!.cells[0]!.width = -1;
      tc.writeFleet(fleet);
      const bad = await tc.call('POST', '/operator/fleet/reload', { operatorKey: KEYS.operator });
      expect(bad.status).toBe(400);
      expect(bad.body.resultCode).toBe(3);
      expect(bad.body.message).toContain('lockers[0].cells[0].width');
      expect((await tc.call('GET', '/api/v4/auth/postamat/get-by-id?postamatId=1', { key: KEYS.shopA })).body.name).toBe('Renamed');
    });
  });
});
