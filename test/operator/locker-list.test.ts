/**
 * GET /operator/lockers over a fleet of a couple of thousand lockers seeded through the
 * repository layer: paging, the filters (presence, open alerts, text) and the free cells per size;
 * and GET /operator/fleet/map giving every active locker, with its fill, in one answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../../cloud/src/db/transaction.js';
import { parseProfile } from '../../cloud/src/lockers/profile.js';
import { raiseAlert } from '../../cloud/src/repositories/alerts.js';
import { savePresence } from '../../cloud/src/repositories/locker-stream.js';
import { findLocker, insertLocker, saveCell } from '../../cloud/src/repositories/lockers.js';
import { KEYS } from '../cloud/helpers/fleet-fixtures.js';
import { type TestCloud, startTestCloud } from '../cloud/helpers/test-cloud.js';
import { testEngines } from '../helpers/cloud-db.js';

const SEEDED = 2000;
const FIRST = 10_001;

describe.each(testEngines())('operator locker list with %s lockers', (engine) => {
  let tc: TestCloud;
  beforeAll(async () => {
    tc = await startTestCloud(engine);
    const template = (await findLocker(tc.db.db, 1))!;
    const at = tc.clock.now();
    await transaction(tc.db, async (tx) => {
      for (let i = 0; i < SEEDED; i++) {
        const id = FIRST + i;
        const city = i % 10 === 0 ? 'Kazan' : 'Moscow';
        const profile = { ...template.profile, location: { ...template.profile.location, city, fullAddress: `${city}, Seed street, ${id}` } };
        await insertLocker(tx, id, { ...template, name: `Seed ${id}`, profile: parseProfile(JSON.stringify(profile)), mqttPasswordHash: null }, at);
        for (const cell of [1, 2]) {
          await saveCell(tx, id, { id: cell, width: 400, height: cell === 1 ? 100 : 200, bus: 'main', board: 0, lock: cell, segment: null, accessible: false, flags: i % 7 === 0 && cell === 2 ? ['blocked'] : [] }, false, at);
        }
        if (i % 3 === 0) await savePresence(tx, id, 1, true, at + i);
        if (i % 100 === 0) {
          await raiseAlert(tx, { lockerId: id, dseq: null, kind: 'board.state', severity: 'critical', cellId: null, orderId: null, detail: {}, dedupKey: `board.state:${id}:-`, occurredAt: at, receivedAt: at });
        }
      }
    });
  }, 120_000);
  afterAll(async () => tc.stop());

  const list = async (query: string) => {
    const answer = await tc.call('GET', `/operator/lockers?${query}`, { operatorKey: KEYS.operator });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as { items: { lockerId: number; online: boolean; since: string | null; freeToday: Record<string, number>; openAlerts: number; city: string }[]; total: number };
  };

  it('pages through every locker by id', async () => {
    const first = await list('pageSize=200');
    expect(first.total).toBe(SEEDED + 4); // the test fleet's four too
    expect(first.items.map((l) => l.lockerId).slice(0, 5)).toEqual([1, 2, 3, 4, FIRST]);
    const page = await list('page=3&pageSize=200');
    expect(page.items).toHaveLength(200);
    expect(page.items[0]!.lockerId).toBe(FIRST + 400 - 4);
    const last = await list(`page=11&pageSize=200`);
    expect(last.items.map((l) => l.lockerId)).toEqual(Array.from({ length: 4 }, (_, i) => FIRST + SEEDED - 4 + i));
    expect(await list('page=12&pageSize=200')).toMatchObject({ items: [], total: SEEDED + 4 });
    expect((await tc.call('GET', '/operator/lockers?pageSize=201', { operatorKey: KEYS.operator })).status).toBe(400);
  });

  it('filters by presence, open alerts and text, and counts free cells per size', async () => {
    const online = await list('status=online&pageSize=200');
    expect(online.total).toBe(Math.ceil(SEEDED / 3));
    expect(online.items.every((l) => l.online && l.since !== null)).toBe(true);
    expect((await list('status=offline')).total).toBe(SEEDED + 4 - Math.ceil(SEEDED / 3));

    const alarmed = await list('alarms=open&pageSize=200');
    expect(alarmed.items.map((l) => l.lockerId)).toEqual(Array.from({ length: SEEDED / 100 }, (_, i) => FIRST + i * 100));
    expect(alarmed.items.every((l) => l.openAlerts === 1)).toBe(true);

    const kazan = await list('query=kazan&pageSize=200');
    expect(kazan.total).toBe(SEEDED / 10);
    expect(kazan.items.every((l) => l.city === 'Kazan')).toBe(true);
    expect((await list(`query=${FIRST + 7}`)).items[0]).toMatchObject({ lockerId: FIRST + 7, freeToday: { '400x100': 1, '400x200': 0 } });
    expect((await list(`query=${FIRST + 8}`)).items[0]).toMatchObject({ lockerId: FIRST + 8, freeToday: { '400x100': 1, '400x200': 1 } });
  });

  it('gives the map every active locker with its state and fill in one answer', async () => {
    const answer = await tc.call('GET', '/operator/fleet/map', { operatorKey: KEYS.operator });
    expect(answer.status).toBe(200);
    const map = answer.body as { items: { lockerId: number; online: boolean; openAlerts: number; fill: { occupied: number; usable: number; percent: number | null } }[]; total: number };
    expect(map.total).toBe(SEEDED + 3); // the test fleet's locker 4 is inactive
    expect(map.items).toHaveLength(SEEDED + 3);
    const byId = new Map(map.items.map((l) => [l.lockerId, l]));
    // Seed 0: its second cell blocked, online, one open alert; seed 1: both cells usable, offline.
    expect(byId.get(FIRST)).toMatchObject({ online: true, openAlerts: 1, fill: { occupied: 0, usable: 1, percent: 0 } });
    expect(byId.get(FIRST + 1)).toMatchObject({ online: false, openAlerts: 0, fill: { occupied: 0, usable: 2, percent: 0 } });
    expect((await tc.call('GET', '/operator/fleet/map?limit=10', { operatorKey: KEYS.operator })).body).toMatchObject({ total: SEEDED + 3, items: { length: 10 } });
  });
});
